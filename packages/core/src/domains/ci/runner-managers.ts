/**
 * Runner authentication and contacts. Runner managers (GitLab's `Ci::RunnerManager`) are the
 * processes behind one runner token, told
 * apart by the `system_id` they send. A runner's calls record on its manager what it says about
 * itself (`info`: version, revision, platform, architecture) and the address it called from;
 * the runner's details and its jobs show them (GitLab's `authenticate_runner!`, `heartbeat`).
 */
import type { Kysely } from 'kysely';
import type { Ctx, Deps } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ForbiddenError } from '../../kernel/errors.js';
import { digestToken } from '../../kernel/ids.js';
import type { Database } from '../../storage/database.js';
import type { CiRunnerManagerRow, CiRunnerRow } from './ci.table.js';
import type { RunnerInfoInput } from './ci.schema.js';

/** The manager of a runner that sends no `system_id` (older runners). */
export const LEGACY_SYSTEM_XID = '<legacy>';

/** What a heartbeat records: the address always, the runner's `info` when it sends one. */
export interface RunnerContact {
  ip: string;
  info?: RunnerInfoInput;
}

/** The client address as GitLab shows it: an IPv4 peer of a dual-stack socket without its `::ffff:` prefix. */
export function clientAddress(ip: string): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}

/** The runner a token belongs to, or undefined. */
export async function runnerByToken(db: Deps['db'], token: string | undefined): Promise<CiRunnerRow | undefined> {
  if (!token) return undefined;
  return db.selectFrom('ci_runners').selectAll().where('token_digest', '=', digestToken(token)).executeTakeFirst();
}

/**
 * 403 unless the token is a runner's (GitLab's `authenticate_runner!`). Records the contact on
 * the runner and on its manager for `systemId` (created on first contact), with the caller's
 * address and `info`; `updateContactedAt: false` records the details but not the contact.
 */
export async function authenticateRunner(
  ctx: Pick<Ctx, 'db' | 'clock'>,
  token: string | undefined,
  contact: RunnerContact & { systemId?: string; updateContactedAt?: boolean },
): Promise<{ runner: CiRunnerRow; manager: CiRunnerManagerRow }> {
  const runner = await runnerByToken(ctx.db, token);
  if (!runner) throw new ForbiddenError();
  const now = nowIso(ctx);
  const updateContactedAt = contact.updateContactedAt ?? true;
  if (updateContactedAt) await ctx.db.updateTable('ci_runners').set({ contacted_at: now }).where('id', '=', runner.id).execute();
  const manager = await ensureRunnerManager(ctx.db, runner.id, contact.systemId ?? LEGACY_SYSTEM_XID, now);
  await heartbeatRunnerManager(ctx, manager.id, contact, { updateContactedAt });
  return { runner: updateContactedAt ? { ...runner, contacted_at: now } : runner, manager };
}

/** The manager for `systemXid`, created on first contact (`ensure_manager`); safe when two calls race. */
export async function ensureRunnerManager(db: Kysely<Database>, runnerId: number, systemXid: string, now: string): Promise<CiRunnerManagerRow> {
  const existing = await db.selectFrom('ci_runner_managers').selectAll().where('runner_id', '=', runnerId).where('system_xid', '=', systemXid).executeTakeFirst();
  if (existing) return existing;
  await db
    .insertInto('ci_runner_managers')
    .values({ runner_id: runnerId, system_xid: systemXid, created_at: now })
    .onConflict((oc) => oc.columns(['runner_id', 'system_xid']).doNothing())
    .execute();
  return db.selectFrom('ci_runner_managers').selectAll().where('runner_id', '=', runnerId).where('system_xid', '=', systemXid).executeTakeFirstOrThrow();
}

/**
 * Records a contact on the manager: the address, what `info` holds, and `contacted_at` unless
 * the contact does not count as one (a created runner verifying its token).
 */
export async function heartbeatRunnerManager(
  ctx: Pick<Ctx, 'db' | 'clock'>,
  managerId: number,
  details: RunnerContact,
  options: { updateContactedAt: boolean },
): Promise<void> {
  const values: Partial<Pick<CiRunnerManagerRow, 'ip_address' | 'contacted_at' | 'version' | 'revision' | 'platform' | 'architecture'>> = {
    ip_address: clientAddress(details.ip),
  };
  const info = details.info;
  if (info) {
    for (const key of ['version', 'revision', 'platform', 'architecture'] as const) {
      if (info[key] !== undefined) values[key] = info[key];
    }
  }
  if (options.updateContactedAt) values.contacted_at = nowIso(ctx);
  await ctx.db.updateTable('ci_runner_managers').set(values).where('id', '=', managerId).execute();
}

/** The manager whose details a runner shows: the one that contacted the server last (`order_contacted_at_desc`). */
export async function latestRunnerManagers(db: Kysely<Database>, runnerIds: number[]): Promise<Map<number, CiRunnerManagerRow>> {
  if (!runnerIds.length) return new Map();
  const rows = await db.selectFrom('ci_runner_managers').selectAll().where('runner_id', 'in', runnerIds).execute();
  const latest = new Map<number, CiRunnerManagerRow>();
  for (const m of rows) {
    const best = latest.get(m.runner_id);
    if (!best || newerContact(m, best)) latest.set(m.runner_id, m);
  }
  return latest;
}

/** `contacted_at DESC NULLS LAST` (GitLab's `RunnerManager.order_contacted_at_desc`), the newer manager on a tie. */
function newerContact(a: CiRunnerManagerRow, b: CiRunnerManagerRow): boolean {
  if ((a.contacted_at === null) !== (b.contacted_at === null)) return a.contacted_at !== null;
  if (a.contacted_at !== b.contacted_at) return a.contacted_at! > b.contacted_at!;
  return a.id > b.id;
}
