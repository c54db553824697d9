/** Summarizes a V8 .cpuprofile: top self-time frames, top inclusive frames, time by area. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROOT } from './proc.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function shortUrl(url: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

function frameName(f: CallFrame): string {
  const fn = f.functionName || '(anonymous)';
  const url = shortUrl(f.url);
  return url ? `${fn} ${url}:${f.lineNumber + 1}` : fn;
}

function areaOf(f: CallFrame): string {
  const url = f.url;
  if (!url) {
    if (f.functionName.startsWith('(')) return f.functionName; // (program) (garbage collector) (idle) (root)
    return 'native/builtin';
  }
  if (url.startsWith('node:')) {
    if (/node:(_http|http|net|stream|internal\/(http|streams|stream_base|net))/.test(url) || url.includes('internal/http')) return 'node http/net/streams';
    return 'node internals';
  }
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) return m[1]!.startsWith('@forgelet') ? 'forgelet' : `npm:${m[1]}`;
  if (url.includes('/packages/core/')) return 'forgelet core';
  if (url.includes('/packages/server/')) return 'forgelet server';
  return 'other';
}

export interface ProfileSummary {
  totalMs: number;
  text: string;
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Self time: each sample's delta goes to the node sampled.
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + Math.max(0, dt));
  }
  let total = 0;
  let idle = 0;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    total += us;
    if (node.callFrame.functionName === '(idle)') idle += us;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + us);
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    // inclusive: every distinct frame on the stack gets the sample once
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === '(root)') break;
      const n = frameName(f);
      if (seen.has(n)) continue;
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / Math.max(1, busy)).toFixed(1).padStart(5)}%`;
  const lines: string[] = [];
  lines.push(`  profile ${file}: ${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy (percentages of busy time)`);
  lines.push('  by area (self time):');
  for (const [a, us] of [...areas].filter(([a]) => a !== '(idle)').sort((x, y) => y[1] - x[1]).slice(0, 10)) lines.push(`    ${pct(us)}  ${a}`);
  lines.push(`  top ${top} frames by self time:`);
  for (const [n, us] of [...self].filter(([n]) => !n.startsWith('(idle)')).sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`    ${pct(us)}  ${n}`);
  lines.push(`  top ${top} Forgelet frames by inclusive time:`);
  for (const [n, us] of [...inclusive].filter(([n]) => n.includes('packages/')).sort((x, y) => y[1] - x[1]).slice(0, top)) {
    lines.push(`    ${pct(us)}  ${n}`);
  }
  return { totalMs: total / 1000, text: lines.join('\n') };
}
