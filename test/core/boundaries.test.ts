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
 * Domain imports that point "up" the domain order, each with the reason it must. The list is
 * empty: where a lower domain needs a higher one's behaviour, the higher domain hands it over at
 * wiring time (forge.ts), as a hook or a finder. Hooks: ci's pipeline hooks
 * (domains/ci/pipeline-hooks.ts) for delivery, flows and merge requests; the repository's push
 * hooks (domains/repository/push-hooks.ts) for ci and approvals; the issues' hooks
 * (domains/issues/issue-hooks.ts) for delivery. Finders (kernel/hooks.ts `Registry`): issues,
 * merge requests and snippets find their noteables for notes; notes finds the awardables for
 * award emoji; approvals gives merge requests their approval status. An entry here needs a
 * reason a reviewer would accept, and the test below fails on one that closes no cycle.
 */
const BACK_EDGES: Record<string, string> = {};

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
    assert.deepEqual(bad.map(where), []);
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
    // Each listed edge must be what closes a cycle: with the others listed and this one kept, a cycle appears.
    const needless = Object.keys(BACK_EDGES).filter((k) => {
      const others = [...pairs.keys()].filter((p) => !(key(p) in BACK_EDGES) || key(p) === k).map((p) => p.split(' > ') as [string, string]);
      return cycles([...new Set(others.flat())].sort(), others).length === 0;
    });
    assert.deepEqual(needless, [], 'back edges that close no cycle: they point down, remove them from the list');
  });

  it('no module loads itself through a circle of runtime imports inside one layer or domain', () => {
    const within = edges.filter((e) => !e.typeOnly && moduleOf(e.from) === moduleOf(e.to)).map((e) => [e.from, e.to] as [string, string]);
    assert.deepEqual(cycles([...new Set(within.flat())].sort(), within), []);
  });
});
