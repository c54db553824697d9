import type { AdvanceEntity, ClockEntity, FaultEntity, FaultSpec, SeedResult, SnapshotEntity, Tier } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { Requester } from '../infrastructure/requester.js';

/** A fault to inject (`POST /forgelet/faults`). */
export type FaultParams = FaultSpec;
export type { FaultEntity };

/**
 * Forgelet's test harness, `/forgelet/…` (admin token; the server must run with
 * `--test-mode`, or `--allow-faults` for the fault calls alone): controllable time,
 * snapshots and reset, seeding, tier switching and fault injection.
 *
 * ```ts
 * await api.harness.seed({ users: [{ username: 'alice', token: 'glpat-alice-0001' }] });
 * await api.harness.snapshot('seeded');
 * await api.harness.advanceClock(86_400); // runs every job that comes due in the day
 * await api.harness.restore('seeded');
 * ```
 */
export class TestHarness {
  constructor(private readonly requester: Requester) {}

  clock(): Promise<ClockEntity> {
    return this.requester.get('forgelet/clock');
  }

  /** Sets the time and/or freezes it (a frozen clock stands still until changed). */
  setClock(params: { now?: string | Date; frozen?: boolean }): Promise<ClockEntity> {
    const now = params.now instanceof Date ? params.now.toISOString() : params.now;
    return this.requester.put('forgelet/clock', { ...params, now });
  }

  /** Moves the time forward; every job that comes due on the way runs, in order, before this resolves. */
  advanceClock(seconds: number): Promise<AdvanceEntity> {
    return this.requester.post('forgelet/clock/advance', { seconds });
  }

  snapshots(): Promise<SnapshotEntity[]> {
    return this.requester.get('forgelet/snapshots');
  }

  /** Snapshot of the whole state (database and blobs) under `name`. */
  snapshot(name: string): Promise<SnapshotEntity> {
    return this.requester.post('forgelet/snapshots', { name });
  }

  restore(name: string): Promise<SnapshotEntity> {
    return this.requester.post(endpoint`forgelet/snapshots/${name}/restore`);
  }

  deleteSnapshot(name: string): Promise<void> {
    return this.requester.delete(endpoint`forgelet/snapshots/${name}`);
  }

  /** Back to the initial state: only the root user, whose tokens keep working. */
  async reset(): Promise<void> {
    await this.requester.post('forgelet/reset');
  }

  /** Creates a world (the `forgelet seed` format, as an object); answers the ids by name. */
  seed(world: object): Promise<SeedResult> {
    return this.requester.post('forgelet/seed', world);
  }

  tier(): Promise<{ tier: Tier }> {
    return this.requester.get('forgelet/tier');
  }

  setTier(tier: Tier): Promise<{ tier: Tier }> {
    return this.requester.put('forgelet/tier', { tier });
  }

  faults(): Promise<FaultEntity[]> {
    return this.requester.get('forgelet/faults');
  }

  addFault(params: FaultParams): Promise<FaultEntity> {
    return this.requester.post('forgelet/faults', params);
  }

  fault(id: number): Promise<FaultEntity> {
    return this.requester.get(endpoint`forgelet/faults/${id}`);
  }

  removeFault(id: number): Promise<void> {
    return this.requester.delete(endpoint`forgelet/faults/${id}`);
  }

  clearFaults(): Promise<void> {
    return this.requester.delete('forgelet/faults');
  }
}
