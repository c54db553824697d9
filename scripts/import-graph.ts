/**
 * The layering of packages/core/src, measured: `npx tsx scripts/import-graph.ts [--json] [--list]`.
 *
 * Layers, bottom to top (ARCHITECTURE.md): kernel, storage, access, domains/*, test-harness,
 * wiring (forge.ts, index.ts and the other top-level files). A module is a layer, except that
 * each domain folder is a module of its own. Counts:
 * - upward imports: a file importing from a higher layer (type-only imports included: a type
 *   from above is a dependency on above all the same);
 * - cycles: strongly connected components of the module graph (and of the file graph, runtime
 *   imports only: what node actually loads in a circle);
 * - deep cross-domain imports: a domain importing another domain's file other than its index.ts;
 * - routes whose path is not a literal, and routes declared outside a `*.routes.ts` file.
 * The boundaries test (test/core/boundaries.test.ts) uses the same analysis.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORE_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/core/src');

export const LAYERS = ['kernel', 'storage', 'access', 'domains', 'test-harness', 'wiring'] as const;
export type Layer = (typeof LAYERS)[number];

export interface ImportEdge {
  from: string; // path relative to packages/core/src
  to: string;
  typeOnly: boolean;
  line: number;
}

export interface RouteDecl {
  file: string;
  line: number;
  method: string;
  path: string | null; // null when not a literal
  text: string;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The files of packages/core/src, relative to it. */
export function coreFiles(root = CORE_SRC): string[] {
  return walk(root).map((f) => relative(root, f)).sort();
}

/** kernel/x.ts → kernel; domains/issues/x.ts → domains; test-harness/x.ts → test-harness. */
export function layerOf(file: string): Layer {
  const [top, second] = file.split('/');
  if (top === 'kernel') return 'kernel';
  if (top === 'storage') return 'storage';
  if (top === 'access') return 'access';
  if (top === 'test-harness') return 'test-harness';
  if (top === 'domains') return 'domains';
  if (top === 'generated') return second?.startsWith('sqlite-schema') ? 'storage' : 'kernel';
  return 'wiring';
}

/** The module a file belongs to: its layer, or `domains/<name>` for a domain. */
export function moduleOf(file: string): string {
  const layer = layerOf(file);
  if (layer === 'domains') return file.split('/').slice(0, 2).join('/');
  return layer;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC = /import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function resolveImport(fromFile: string, spec: string, files: Set<string>): string | null {
  const base = join(dirname(fromFile), spec).replace(/\\/g, '/');
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}/index.ts`, base]) {
    if (files.has(c)) return c;
  }
  return null;
}

/** Every relative import between files of packages/core/src. */
export function importEdges(root = CORE_SRC): ImportEdge[] {
  const files = coreFiles(root);
  const set = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const lineAt = (index: number) => text.slice(0, index).split('\n').length;
    for (const m of text.matchAll(IMPORT)) {
      const to = resolveImport(file, m[3]!, set);
      // `import { type A, type B }` is type-only too
      const names = /\{([^}]*)\}/.exec(m[0])?.[1];
      const allTypes = names !== undefined && names.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '));
      if (to) edges.push({ from: file, to, typeOnly: Boolean(m[2]) || allTypes, line: lineAt(m.index!) });
    }
    for (const m of text.matchAll(DYNAMIC)) {
      const to = resolveImport(file, m[1]!, set);
      if (to) edges.push({ from: file, to, typeOnly: false, line: lineAt(m.index!) });
    }
  }
  return edges;
}

export function isUpward(e: ImportEdge): boolean {
  return LAYERS.indexOf(layerOf(e.to)) > LAYERS.indexOf(layerOf(e.from));
}

/** A domain importing another domain's inner file (not its index.ts). */
export function isDeepCrossDomain(e: ImportEdge): boolean {
  const a = moduleOf(e.from);
  const b = moduleOf(e.to);
  return a.startsWith('domains/') && b.startsWith('domains/') && a !== b && !e.to.endsWith('/index.ts');
}

/** Strongly connected components with more than one node (Tarjan). */
export function cycles(nodes: string[], edges: [string, string][]): string[][] {
  const adj = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [a, b] of edges) if (a !== b) adj.get(a)?.push(b);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export function moduleCycles(edges: ImportEdge[]): string[][] {
  const pairs = edges.map((e) => [moduleOf(e.from), moduleOf(e.to)] as [string, string]);
  return cycles([...new Set(pairs.flat())].sort(), pairs);
}

export function fileCycles(edges: ImportEdge[]): string[][] {
  const runtime = edges.filter((e) => !e.typeOnly).map((e) => [e.from, e.to] as [string, string]);
  return cycles([...new Set(runtime.flat())].sort(), runtime);
}

const ROUTE_CALL = /\broute\(\s*'(GET|POST|PUT|PATCH|DELETE|HEAD)'\s*,\s*/g;

/** Every `route('METHOD', path, …)` call, with its path when it is a plain string literal. */
export function routeDeclarations(root = CORE_SRC): RouteDecl[] {
  const out: RouteDecl[] = [];
  for (const file of coreFiles(root)) {
    if (file === 'kernel/route.ts') continue;
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(ROUTE_CALL)) {
      const rest = text.slice(m.index! + m[0].length);
      // '…' or "…" (a path holding quotes: `Packages(Id=':package_name')`); `…` never counts
      const literal = /^(?:'([^'\\\n]*)'|"([^"\\\n]*)")\s*[,)]/.exec(rest);
      out.push({
        file,
        line: text.slice(0, m.index!).split('\n').length,
        method: m[1]!,
        path: literal ? (literal[1] ?? literal[2])! : null,
        text: rest.split(/[,\n]/)[0]!.trim(),
      });
    }
  }
  return out;
}

export interface GraphReport {
  files: number;
  imports: number;
  upward: ImportEdge[];
  deepCrossDomain: ImportEdge[];
  throughIndex: number;
  moduleCycles: string[][];
  fileCycles: string[][];
  routes: number;
  nonLiteralRoutes: RouteDecl[];
  routesOutsideRoutesFiles: RouteDecl[];
  /** Domain files that name the `users` table in a query (others read users through access/users.ts). */
  usersQueries: { file: string; line: number }[];
}

/** Where a domain names the `users` table in a query (selectFrom, joins, updates). */
export function usersQueries(root = CORE_SRC): { file: string; line: number }[] {
  const out: { file: string; line: number }[] = [];
  for (const rel of coreFiles(root)) {
    if (!rel.startsWith('domains/')) continue;
    readFileSync(join(root, rel), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (/(?:selectFrom|innerJoin|leftJoin|updateTable|deleteFrom|insertInto)\(\s*'users'/.test(text)) out.push({ file: rel, line: i + 1 });
      });
  }
  return out;
}

export function report(root = CORE_SRC): GraphReport {
  const edges = importEdges(root);
  const cross = edges.filter((e) => moduleOf(e.from).startsWith('domains/') && moduleOf(e.to).startsWith('domains/') && moduleOf(e.from) !== moduleOf(e.to));
  const routes = routeDeclarations(root);
  return {
    files: coreFiles(root).length,
    imports: edges.length,
    upward: edges.filter(isUpward),
    deepCrossDomain: edges.filter(isDeepCrossDomain),
    throughIndex: cross.filter((e) => e.to.endsWith('/index.ts')).length,
    moduleCycles: moduleCycles(edges),
    fileCycles: fileCycles(edges),
    routes: routes.length,
    nonLiteralRoutes: routes.filter((r) => r.path === null),
    routesOutsideRoutesFiles: routes.filter((r) => !r.file.endsWith('.routes.ts')),
    usersQueries: usersQueries(root),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = report();
  const list = process.argv.includes('--list');
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(r, null, 2));
  } else {
    const edge = (e: ImportEdge) => `  ${e.from}:${e.line} → ${e.to}${e.typeOnly ? ' (type)' : ''}`;
    console.log(`packages/core/src: ${r.files} files, ${r.imports} relative imports, ${r.routes} routes`);
    console.log(`upward imports: ${r.upward.length} (${r.upward.filter((e) => e.typeOnly).length} type-only)`);
    if (list) r.upward.forEach((e) => console.log(edge(e)));
    console.log(`module cycles: ${r.moduleCycles.length}`);
    for (const c of r.moduleCycles) console.log(`  ${c.join(' ↔ ')}`);
    console.log(`file cycles (runtime imports): ${r.fileCycles.length}`);
    if (list) for (const c of r.fileCycles) console.log(`  ${c.join(' ↔ ')}`);
    console.log(`cross-domain imports: ${r.deepCrossDomain.length} deep, ${r.throughIndex} through index.ts`);
    if (list) r.deepCrossDomain.forEach((e) => console.log(edge(e)));
    console.log(`routes whose path is not a literal: ${r.nonLiteralRoutes.length}`);
    if (list) r.nonLiteralRoutes.forEach((d) => console.log(`  ${d.file}:${d.line} ${d.method} ${d.text}`));
    console.log(`routes outside *.routes.ts: ${r.routesOutsideRoutesFiles.length}`);
    if (list) r.routesOutsideRoutesFiles.forEach((d) => console.log(`  ${d.file}:${d.line} ${d.method} ${d.text}`));
    const usersDomains = new Set(r.usersQueries.map((q) => q.file.split('/')[1]));
    console.log(`queries naming the users table in domains: ${r.usersQueries.length}, in ${usersDomains.size} domains (${[...usersDomains].sort().join(', ')})`);
    if (list) r.usersQueries.forEach((q) => console.log(`  ${q.file}:${q.line}`));
  }
}
