/** The test harness: controllable time, snapshots and reset, seeding, tier switching. */
export { createTestHarnessRoutes } from './test-harness.routes.js';
export { advanceClock, clockState, setClock, type AdvanceEntity, type ClockEntity } from './test-clock.js';
export { createSnapshot, deleteSnapshot, listSnapshots, resetState, restoreSnapshot, type SnapshotEntity } from './test-snapshots.js';
export { parseSeedText, seedWorld, type SeedResult, type SeededItem } from './seed.js';
export { controllableClock, joinTransaction } from './harness.js';
