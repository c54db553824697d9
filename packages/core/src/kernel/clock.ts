/** Time source injected into core; tests and test mode step it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that can be set, frozen and advanced. When not frozen it runs from the last set
 * point at the speed of the system clock.
 */
export class ControllableClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  constructor(private readonly base: Clock = systemClock) {}

  now(): Date {
    if (this.frozenAt !== null) return new Date(this.frozenAt);
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  get frozen(): boolean {
    return this.frozenAt !== null;
  }

  set(at: Date, frozen = this.frozen): void {
    this.offsetMs = at.getTime() - this.base.now().getTime();
    this.frozenAt = frozen ? at.getTime() : null;
  }

  freeze(): void {
    this.frozenAt = this.now().getTime();
  }

  unfreeze(): void {
    this.set(this.now(), false);
  }

  advance(ms: number): void {
    this.set(new Date(this.now().getTime() + ms));
  }
}

/** A frozen clock at a fixed instant (tests). */
export function fixedClock(iso: string): ControllableClock {
  const clock = new ControllableClock();
  clock.set(new Date(iso), true);
  return clock;
}

/** ISO-8601 UTC with milliseconds and `Z`, as GitLab writes datetimes. */
export function isoTime(d: Date): string {
  return d.toISOString();
}

/** `YYYY-MM-DD` in UTC. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
