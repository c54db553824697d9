/**
 * `/api/v4/forgelet/…`: the test harness over HTTP (admin only). Registered only when the
 * forge runs in test mode (`--test-mode`, FORGELET_TEST_MODE=1); otherwise these paths are
 * unknown (404).
 */
import type { Ctx } from '../access/context.js';
import { BadRequestError, TooLargeError } from '../kernel/errors.js';
import { p, params } from '../kernel/params.js';
import { created, noContent, ok, route, type Route } from '../kernel/route.js';
import { TIERS } from '../kernel/tiers.js';
import { parseSeedText, seedWorld } from './seed.js';
import { advanceClock, clockState, setClock } from './test-clock.js';
import { createSnapshot, deleteSnapshot, listSnapshots, resetState, restoreSnapshot } from './test-snapshots.js';

const tag = 'forgelet_test_harness';
const auth = 'admin' as const;
const SnapshotName = params({ name: p.string() });

async function readText(ctx: Ctx, body: AsyncIterable<Uint8Array> | undefined): Promise<string> {
  if (!body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > ctx.config.limits.bodyBytes) throw new TooLargeError();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The harness routes; `allRoutes` gives the forge's full route table (seeding calls its handlers). */
export function createTestHarnessRoutes(allRoutes: () => Route[]): Route[] {
  return [
    route('GET', '/forgelet/clock', { auth, tag, summary: 'The server clock: now and whether it is frozen' },
      async (ctx) => ok(clockState(ctx))),
    route('PUT', '/forgelet/clock', {
      auth, tag, summary: 'Set the clock (now) and/or freeze it (frozen)',
      params: params({ now: p.datetime().optional(), frozen: p.boolean().optional() }, { atLeastOneOf: [['now', 'frozen']] }),
    }, async (ctx, input) => ok(setClock(ctx, input))),
    route('POST', '/forgelet/clock/advance', {
      auth, tag, summary: 'Move the clock forward, running every job that comes due on the way, in time order',
      params: params({ seconds: p.integer().min(0) }),
    }, async (ctx, { seconds }) => ok(await advanceClock(ctx, seconds * 1000))),

    route('GET', '/forgelet/snapshots', { auth, tag, summary: 'List snapshots' },
      async (ctx) => ok(await listSnapshots(ctx))),
    route('POST', '/forgelet/snapshots', { auth, tag, summary: 'Snapshot the whole state (database and blobs) under a name', params: SnapshotName },
      async (ctx, { name }) => created(await createSnapshot(ctx, name))),
    route('POST', '/forgelet/snapshots/:name/restore', { auth, tag, summary: 'Restore a snapshot', params: SnapshotName },
      async (ctx, { name }) => ok(await restoreSnapshot(ctx, name))),
    route('DELETE', '/forgelet/snapshots/:name', { auth, tag, summary: 'Delete a snapshot', params: SnapshotName },
      async (ctx, { name }) => {
        await deleteSnapshot(ctx, name);
        return noContent();
      }),
    route('POST', '/forgelet/reset', { auth, tag, summary: 'Back to the initial state: only the root user, its tokens kept' },
      async (ctx) => {
        await resetState(ctx);
        return noContent();
      }),

    route('POST', '/forgelet/seed', { auth, tag, summary: 'Create users, groups, projects and their contents from a YAML or JSON document', rawBody: true },
      async (ctx, _input, req) => {
        const text = await readText(ctx, req.body);
        if (text.trim() === '') throw new BadRequestError('seed: the document is empty');
        return created(await seedWorld(ctx, allRoutes(), parseSeedText(text)));
      }),

    route('GET', '/forgelet/tier', { auth, tag, summary: 'The licensed tier' },
      async (ctx) => ok({ tier: ctx.config.tier })),
    route('PUT', '/forgelet/tier', { auth, tag, summary: 'Switch the licensed tier (takes effect on the next request)', params: params({ tier: p.enum(TIERS) }) },
      async (ctx, { tier }) => {
        ctx.config.tier = tier;
        return ok({ tier });
      }),
  ];
}
