/**
 * The layering of packages/core/src, checked (issue 24). Layers, bottom to top: kernel, storage,
 * access, domains/*, test-harness, wiring (forge.ts and the package entry). Each imports only
 * from below; a domain reaches another domain only through its index.ts; and the domains form
 * no cycle, except through the back edges listed here, each with the reason it exists.
 *
 * The analysis is scripts/import-graph.ts (`npx tsx scripts/import-graph.ts --list` prints it).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  cycles,
  importEdges,
  isDeepCrossDomain,
  isUpward,
  layerOf,
  moduleOf,
  type ImportEdge,
} from '../../scripts/import-graph.js';

/**
 * Domain imports that point "up" the domain order. Without them the domains form no cycle. Each
 * is a reaction or a read that belongs to the lower domain's behaviour but needs the higher
 * one's code; the way out, where there is one, is a hook the higher domain registers at wiring
 * time, as ci's pipeline hooks (domains/ci/pipeline-hooks.ts) do for delivery, flows and merge
 * requests, the repository's push hooks (domains/repository/push-hooks.ts) for ci and
 * approvals, and the issues' hooks (domains/issues/issue-hooks.ts) for delivery.
 */
const BACK_EDGES: Record<string, string> = {
  'accounts > repository': 'creating a project with initialize_with_readme writes its first commit; projects show readme_url',
  'accounts > ci': "creating a project makes its runners registration token (GitLab's Project#ensure_runners_token)",
  'ci > artifacts': "the runner API (POST /jobs/:id/artifacts) stores a job's artifacts and the job payload lists its dependencies' archives",
  'merge-requests > approvals': 'a merge request shows and enforces its approval state (merge_status, detailed_merge_status, merge)',
  'issues > notes': 'issues count their user notes and delete them with the issue',
  'merge-requests > notes': 'merge requests count their user notes and write system notes on merge',
  'snippets > notes': 'deleting a snippet deletes its notes',
  'issues > award-emoji': 'issues count their upvotes and downvotes and delete their awards',
  'merge-requests > award-emoji': 'merge requests count their upvotes and downvotes and delete their awards',
  'snippets > award-emoji': 'deleting a snippet deletes its awards',
  'notes > award-emoji': 'deleting a note deletes its awards',
  'issues > state-events': 'closing and reopening an issue records a resource state event',
  'merge-requests > state-events': 'closing, reopening and merging a merge request records a resource state event',
  'epics > state-events': 'closing and reopening an epic records a resource state event',
};

const edges = importEdges();
const where = (e: ImportEdge) => `${e.from}:${e.line} → ${e.to}`;

describe('core boundaries', () => {
  it('every import points down a layer (kernel, storage, access, domains, test-harness, wiring)', () => {
    assert.deepEqual(edges.filter(isUpward).map(where), []);
  });

  it('the kernel imports nothing but the kernel, and storage nothing above it', () => {
    const bad = edges.filter((e) => (layerOf(e.from) === 'kernel' && layerOf(e.to) !== 'kernel') || (layerOf(e.from) === 'storage' && !['kernel', 'storage'].includes(layerOf(e.to))));
    assert.deepEqual(bad.map(where), []);
  });

  it('a domain reaches another domain only through its index.ts', () => {
    assert.deepEqual(edges.filter(isDeepCrossDomain).map(where), []);
  });

  it('the test harness and the wiring reach domains through their index.ts (or their *.routes.ts)', () => {
    const bad = edges.filter((e) => ['test-harness', 'wiring'].includes(layerOf(e.from)) && layerOf(e.to) === 'domains' && !/\/(index|[\w-]+\.routes)\.ts$/.test(e.to));
    // project-archive.ts declares routes outside a routes file (to be moved with the literal-paths work)
    assert.deepEqual(bad.map(where).filter((w) => !w.endsWith('domains/accounts/project-archive.ts')), []);
  });

  it('no cycle between layers, and none between domains but through the listed back edges', () => {
    const pairs = new Map<string, ImportEdge>();
    for (const e of edges) {
      const a = moduleOf(e.from);
      const b = moduleOf(e.to);
      if (a !== b) pairs.set(`${a} > ${b}`, e);
    }
    const key = (k: string) => k.replaceAll('domains/', '');
    const kept = [...pairs.keys()].filter((k) => !(key(k) in BACK_EDGES)).map((k) => k.split(' > ') as [string, string]);
    const left = cycles([...new Set(kept.flat())].sort(), kept);
    assert.deepEqual(left, [], 'cycles that no listed back edge explains');
    const stale = Object.keys(BACK_EDGES).filter((k) => !pairs.has(k.replace(/^([\w-]+) > ([\w-]+)$/, 'domains/$1 > domains/$2')));
    assert.deepEqual(stale, [], 'back edges that no longer exist: remove them from the list');
    for (const [k, reason] of Object.entries(BACK_EDGES)) assert.ok(reason.length > 20, `${k} needs a reason`);
  });

  it('no module loads itself through a circle of runtime imports inside one layer or domain', () => {
    const within = edges.filter((e) => !e.typeOnly && moduleOf(e.from) === moduleOf(e.to)).map((e) => [e.from, e.to] as [string, string]);
    assert.deepEqual(cycles([...new Set(within.flat())].sort(), within), []);
  });
});
