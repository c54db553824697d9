import { ForbiddenError } from './errors.js';

export type Tier = 'free' | 'premium' | 'ultimate';
export const TIERS: readonly Tier[] = ['free', 'premium', 'ultimate'];

const RANK: Record<Tier, number> = { free: 0, premium: 1, ultimate: 2 };

export function tierAtLeast(current: Tier, needed: Tier): boolean {
  return RANK[current] >= RANK[needed];
}

/** Throws 403 when the instance tier is below `needed` (routes may answer otherwise). */
export function requireTier(ctx: { config: { tier: Tier } }, needed: Tier): void {
  if (!tierAtLeast(ctx.config.tier, needed)) throw new ForbiddenError();
}
