/**
 * Generates packages/core/src/generated/openapi-responses.ts: the answers of every route, from
 * the reply types the routes declare and the runtime route table.
 *
 * Each route's type is `Route<S, R>` (kernel/route.ts), where `R` is the union of its replies:
 * `ok<T>` → `JsonReply<200, T>`, `created<T>` → `JsonReply<201, T>`, `paged<T>` → `PageReply<T>`,
 * `text(body, 'application/xml')` → `TextReply<200, 'application/xml'>`, and so on. This script
 *  - takes the routes from the runtime table (createForge in test mode, as docs/routes.md), so
 *    every `METHOD path` key is the one the server serves;
 *  - finds each route's `route()` call at the file and line the route recorded when declared
 *    (kernel/route.ts `routeDeclaration`), and asks the TypeScript checker for the type of that
 *    call: the `R` of its `Route<S, R>`;
 *  - turns every member of `R` into an answer: its literal status, its kind, the content types
 *    of text and stream replies, and the JSON Schema 2020-12 of a JSON body or page item (named
 *    types, interfaces and aliases, go to `components.schemas` and are referenced).
 * A reply whose status is not a literal, or whose JSON body is untyped, is a problem: the
 * route must declare what it answers.
 *
 * Run: `npm run generate:openapi` (a test fails when the committed file is stale).
 * `--check` exits 1 when the file is stale: at once when a hash of the inputs (core's sources,
 * this script, the TypeScript version) matches the one recorded in the file, otherwise after
 * generating and comparing (the inputs changed; the answers may not have).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { routeDeclaration } from '../packages/core/src/kernel/route.js';
import { forgeRoutes } from './routes-doc.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORE = path.join(ROOT, 'packages/core/src');
export const GENERATED_FILE = path.join(CORE, 'generated/openapi-responses.ts');
const ROUTE_MODULE = path.join(CORE, 'kernel/route.ts');

type Schema = Record<string, unknown>;

/** One documented answer of a route (the shape kernel/openapi.ts reads). */
export interface ResponseDecl {
  status: number;
  kind: 'json' | 'page' | 'empty' | 'text' | 'stream' | 'redirect';
  /** Content types (text/stream); absent for json/page/empty/redirect. `*\/*` when chosen at run time. */
  contentTypes?: string[];
  /** JSON Schema of the body (json/page: the item), absent when none. */
  schema?: Schema;
}

export interface GenerateResult {
  text: string;
  /** How many routes the runtime table holds. */
  routes: number;
  problems: string[];
}

const HASH_LINE = /^\/\/ inputs: ([0-9a-f]+)\n/m;

/** sha256 of everything the output depends on: core's sources (not the generated file), this script and the route-table loader, TypeScript's version. */
export function inputsHash(): string {
  const hash = createHash('sha256').update(ts.version).update(readFileSync(fileURLToPath(import.meta.url))).update(readFileSync(path.join(ROOT, 'scripts/routes-doc.ts')));
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== path.dirname(GENERATED_FILE)) walk(p);
      } else if (e.name.endsWith('.ts')) hash.update(path.relative(CORE, p)).update('\0').update(readFileSync(p)).update('\0');
    }
  };
  walk(CORE);
  return hash.digest('hex');
}

/** A route to document: its `METHOD path` and the file (absolute) and line of its `route()` call. */
export interface RouteSite {
  name: string;
  file: string;
  line: number;
}

/** The declared answers of the routes at `sites`, the named schemas they reference, and the problems met. */
export function answersOf(sites: readonly RouteSite[]): { table: Record<string, ResponseDecl[]>; schemas: Record<string, Schema>; problems: string[] } {
  const problems: string[] = [];
  const files = [...new Set(sites.map((s) => s.file))].sort();
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const schemas = new SchemaBuilder(checker);

  // Every route() call of those files by `file:line` of its callee.
  const calls = new Map<string, ts.CallExpression[]>();
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) {
      problems.push(`${file}: not found`);
      continue;
    }
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && isRouteFunction(checker, node.expression)) {
        const line = sf.getLineAndCharacterOfPosition(node.expression.getStart()).line + 1;
        const key = `${file}:${line}`;
        calls.set(key, [...(calls.get(key) ?? []), node]);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  const table: Record<string, ResponseDecl[]> = {};
  const answers = new Map<ts.CallExpression, ResponseDecl[]>();
  for (const site of sites) {
    const where = `${path.relative(ROOT, site.file)}:${site.line}`;
    const found = calls.get(`${site.file}:${site.line}`) ?? [];
    if (found.length !== 1) {
      problems.push(`${site.name}: ${found.length ? 'several route() calls' : 'no route() call'} at ${where}`);
      continue;
    }
    const call = found[0]!;
    if (!answers.has(call)) answers.set(call, declaredReplies(checker, schemas, call, (p) => problems.push(`${site.name} (${where}): ${p}`)));
    const responses = answers.get(call)!;
    if (responses.length) table[site.name] = responses;
  }
  return { table, schemas: schemas.components(), problems };
}

export async function generate(): Promise<GenerateResult> {
  const { routes } = await forgeRoutes();
  const problems: string[] = [];
  const sites: RouteSite[] = [];
  for (const r of routes) {
    const at = routeDeclaration(r);
    if (at) sites.push({ name: `${r.method} ${r.path}`, file: path.join(CORE, at.file), line: at.line });
    else problems.push(`${r.method} ${r.path}: no declaration site (core must run from its TypeScript sources)`);
  }
  const { table, schemas: components, problems: found } = answersOf(sites);
  problems.push(...found);
  const sortedTable = Object.fromEntries(Object.keys(table).sort().map((k) => [k, table[k]]));
  const text = [
    '// GENERATED by scripts/openapi-responses.ts from the routes\' declared reply types: do not edit.',
    '// Regenerate with `npm run generate:openapi` (test/server/openapi.test.ts fails when this file is stale).',
    `// inputs: ${inputsHash()}`,
    '/* eslint-disable */',
    "import type { ResponseDecl } from '../kernel/openapi.js';",
    '',
    '// The table is JSON text in template literals, parsed on first use (GET /openapi.json): a',
    '// string costs next to nothing when `forgelet serve` loads, the same data as object literals',
    '// took V8 tens of milliseconds to compile at every start.',
    '',
    '/** JSON Schemas (2020-12) of the named response types, for `components.schemas`. */',
    `const RESPONSE_SCHEMAS_JSON = \`${templateText(JSON.stringify(components, null, 1))}\`;`,
    '',
    '/** `METHOD path` → the answers its route declares (success and redirect statuses). */',
    `const ROUTE_RESPONSES_JSON = \`${templateText(JSON.stringify(sortedTable, null, 1))}\`;`,
    '',
    'let parsed: { schemas: Record<string, Record<string, unknown>>; routes: Record<string, ResponseDecl[]> } | null = null;',
    '',
    '/** The generated table (parsed once, then shared: do not modify). */',
    'export function generatedResponses(): { schemas: Record<string, Record<string, unknown>>; routes: Record<string, ResponseDecl[]> } {',
    '  return (parsed ??= { schemas: JSON.parse(RESPONSE_SCHEMAS_JSON), routes: JSON.parse(ROUTE_RESPONSES_JSON) });',
    '}',
    '',
  ].join('\n');
  return { text, routes: routes.length, problems };
}

/** `text` as the body of a template literal whose value is `text` again. */
function templateText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
}

/** Whether `expr` names kernel/route.ts's `route`. */
function isRouteFunction(checker: ts.TypeChecker, expr: ts.Expression): boolean {
  let sym = checker.getSymbolAtLocation(expr);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  const decl = sym?.declarations?.[0];
  return Boolean(decl && ts.isFunctionDeclaration(decl) && decl.name?.text === 'route' && path.resolve(decl.getSourceFile().fileName) === ROUTE_MODULE);
}

// ---------------------------------------------------------------- declared replies

/** The answers a `route()` call declares: the members of `R` in the `Route<S, R>` it returns. */
function declaredReplies(checker: ts.TypeChecker, schemas: SchemaBuilder, call: ts.CallExpression, problem: (p: string) => void): ResponseDecl[] {
  const routeType = checker.getTypeAtLocation(call);
  const handler = checker.getPropertyOfType(routeType, 'handler');
  const signature = handler && checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(handler, call), ts.SignatureKind.Call)[0];
  if (!signature) {
    problem('the route() call has no handler type');
    return [];
  }
  const replies = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  const out: ResponseDecl[] = [];
  for (const member of replies.isUnion() ? replies.types : [replies]) {
    const prop = (name: string) => {
      const p = checker.getPropertyOfType(member, name);
      return p && checker.getTypeOfSymbolAtLocation(p, call);
    };
    const kind = literals(prop('kind'), 'string')?.[0] as ResponseDecl['kind'] | undefined;
    const statuses = literals(prop('status'), 'number') as number[] | undefined;
    if (!kind) {
      problem(`a reply of type ${checker.typeToString(member)} has no literal kind`);
      continue;
    }
    if (!statuses) {
      problem(`a ${kind} reply has no literal status (${checker.typeToString(member)}): type the reply, e.g. JsonReply<200, T>`);
      continue;
    }
    for (const status of statuses) {
      switch (kind) {
        case 'json': {
          const body = prop('body');
          if (!body || body.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) problem(`the ${status} JSON body is untyped`);
          out.push({ status, kind, schema: body ? schemas.of(body, call) : {} });
          break;
        }
        case 'page': {
          const page = prop('page');
          const items = page && checker.getPropertyOfType(page, 'items');
          const itemsType = items && checker.getTypeOfSymbolAtLocation(items, call);
          const item = itemsType && checker.isArrayType(itemsType) ? checker.getTypeArguments(itemsType as ts.TypeReference)[0] : undefined;
          if (!item || item.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) problem('the page items are untyped');
          out.push({ status, kind, schema: item ? schemas.of(item, call) : {} });
          break;
        }
        case 'text':
        case 'stream':
          out.push({ status, kind, contentTypes: (literals(prop('contentType'), 'string') as string[] | undefined) ?? ['*/*'] });
          break;
        default:
          out.push({ status, kind });
      }
    }
  }
  return merge(out);
}

/** The values of a literal type or a union of literals of one primitive; undefined when it is not one. */
function literals(type: ts.Type | undefined, of: 'string' | 'number'): Array<string | number> | undefined {
  if (!type) return undefined;
  const parts = type.isUnion() ? type.types : [type];
  if (!parts.every((p) => (of === 'string' ? p.isStringLiteral() : p.isNumberLiteral()))) return undefined;
  return parts.map((p) => (p as ts.LiteralType).value as string | number);
}

/** One entry per (status, kind); JSON bodies of one status become anyOf; content types are merged. */
function merge(list: ResponseDecl[]): ResponseDecl[] {
  const out: ResponseDecl[] = [];
  for (const r of list) {
    const same = out.find((o) => o.status === r.status && o.kind === r.kind);
    if (!same) {
      out.push({ ...r });
      continue;
    }
    if (r.contentTypes) same.contentTypes = [...new Set([...(same.contentTypes ?? []), ...r.contentTypes])];
    if (r.schema && JSON.stringify(r.schema) !== JSON.stringify(same.schema)) {
      const prior = (same.schema?.anyOf as Schema[] | undefined) ?? [same.schema!];
      if (!prior.some((s) => JSON.stringify(s) === JSON.stringify(r.schema))) same.schema = { anyOf: [...prior, r.schema] };
    }
  }
  return out.sort((a, b) => a.status - b.status || a.kind.localeCompare(b.kind));
}

// ---------------------------------------------------------------- types → JSON Schema

class SchemaBuilder {
  private readonly named = new Map<ts.Symbol, string>();
  private readonly defs = new Map<string, Schema>();
  private readonly taken = new Set<string>();
  constructor(private readonly checker: ts.TypeChecker) {}

  components(): Record<string, Schema> {
    return Object.fromEntries([...this.defs.keys()].sort().map((k) => [k, this.defs.get(k)!]));
  }

  of(type: ts.Type, at: ts.Node): Schema {
    return this.convert(type, at, 0);
  }

  /** The name of a type worth a component: a non-generic interface or alias declared in our sources. */
  private nameOf(type: ts.Type): { symbol: ts.Symbol; name: string } | undefined {
    const alias = type.aliasSymbol;
    if (alias && !type.aliasTypeArguments?.length) return this.ours(alias);
    const sym = type.getSymbol();
    if (sym && sym.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class) && !(type as ts.TypeReference).typeArguments?.length) return this.ours(sym);
    return undefined;
  }

  private ours(symbol: ts.Symbol): { symbol: ts.Symbol; name: string } | undefined {
    const decl = symbol.declarations?.[0];
    if (!decl || !path.resolve(decl.getSourceFile().fileName).startsWith(CORE)) return undefined;
    return { symbol, name: symbol.getName() };
  }

  private convert(type: ts.Type, at: ts.Node, depth: number): Schema {
    if (depth > 20) return {};
    const named = this.nameOf(type);
    if (named) {
      let id = this.named.get(named.symbol);
      if (!id) {
        id = named.name;
        for (let n = 2; this.taken.has(id); n++) id = `${named.name}${n}`;
        this.taken.add(id);
        this.named.set(named.symbol, id);
        this.defs.set(id, {});
        const body = this.structural(type, at, depth);
        const doc = docOf(this.checker, named.symbol);
        this.defs.set(id, doc ? { description: doc, ...body } : body);
      }
      return { $ref: `#/components/schemas/${id}` };
    }
    return this.structural(type, at, depth);
  }

  private structural(type: ts.Type, at: ts.Node, depth: number): Schema {
    const c = this.checker;
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (f & ts.TypeFlags.Never) return { not: {} };
    if (f & ts.TypeFlags.StringLiteral) return { const: (type as ts.StringLiteralType).value };
    if (f & ts.TypeFlags.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
    if (f & ts.TypeFlags.BooleanLiteral) return { const: (type as { intrinsicName?: string }).intrinsicName === 'true' };
    if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return { not: {} };
    if (type.isUnion()) return this.union(type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void))), at, depth);
    if (c.isArrayType(type)) return { type: 'array', items: this.convert(c.getTypeArguments(type as ts.TypeReference)[0]!, at, depth + 1) };
    if (c.isTupleType(type)) {
      const items = c.getTypeArguments(type as ts.TypeReference).map((a) => this.convert(a, at, depth + 1));
      return { type: 'array', prefixItems: items, items: false };
    }
    if (f & ts.TypeFlags.Object || type.isIntersection()) {
      const sym = type.getSymbol();
      if (sym?.getName() === 'Date') return { type: 'string' };
      const properties: Record<string, Schema> = {};
      const required: string[] = [];
      for (const p of inDeclarationOrder(c.getPropertiesOfType(type))) {
        const pt = c.getTypeOfSymbolAtLocation(p, at);
        if (c.getSignaturesOfType(pt, ts.SignatureKind.Call).length) continue;
        const parts = pt.isUnion() ? pt.types : [pt];
        if (parts.every((x) => x.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void))) continue;
        const optional = Boolean(p.flags & ts.SymbolFlags.Optional) || parts.some((x) => x.flags & ts.TypeFlags.Undefined);
        const s = this.convert(pt, at, depth + 1);
        const doc = docOf(c, p);
        properties[p.getName()] = doc && !('$ref' in s) ? { description: doc, ...s } : s;
        if (!optional) required.push(p.getName());
      }
      const out: Schema = { type: 'object', properties };
      if (required.length) out.required = required;
      const index = c.getIndexTypeOfType(type, ts.IndexKind.String);
      out.additionalProperties = index ? this.convert(index, at, depth + 1) : false;
      if (!Object.keys(properties).length) delete out.properties;
      return out;
    }
    return {};
  }

  private union(types: ts.Type[], at: ts.Node, depth: number): Schema {
    const hasTrue = types.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && (t as { intrinsicName?: string }).intrinsicName === 'true');
    const hasFalse = types.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && (t as { intrinsicName?: string }).intrinsicName === 'false');
    let rest = types;
    const simple: string[] = [];
    if (hasTrue && hasFalse) {
      rest = rest.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
      simple.push('boolean');
    }
    const literals = rest.filter((t) => t.isStringLiteral() || t.isNumberLiteral());
    rest = rest.filter((t) => !(t.isStringLiteral() || t.isNumberLiteral()));
    const schemas: Schema[] = [];
    for (const t of rest) {
      const s = this.convert(t, at, depth + 1);
      if (Object.keys(s).length === 1 && typeof s.type === 'string' && !this.nameOf(t)) simple.push(s.type);
      else schemas.push(s);
    }
    if (literals.length) {
      // Sorted: a union's order is the checker's (type ids, which follow the order it met them).
      const values = literals.map((t) => (t as ts.LiteralType).value as string | number).sort((x, y) => (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))));
      if (simple.includes('null')) {
        values.push(null as unknown as string);
        simple.splice(simple.indexOf('null'), 1);
      }
      schemas.unshift(values.length === 1 ? { const: values[0] } : { enum: values });
    }
    if (simple.length) schemas.unshift({ type: simple.length === 1 ? simple[0] : [...new Set(simple)] });
    if (schemas.length === 1) return schemas[0]!;
    // `T | null` for a named T: anyOf keeps the reference.
    return { anyOf: schemas };
  }
}

/**
 * Properties in the order they are written (file, then position): the checker lists those of
 * mapped types (Omit, Pick) and intersections in an order that depends on what it checked first.
 */
function inDeclarationOrder(props: ts.Symbol[]): ts.Symbol[] {
  const at = (p: ts.Symbol): [string, number] => {
    const d = p.declarations?.[0];
    return d ? [d.getSourceFile().fileName, d.getStart()] : ['\uffff', 0];
  };
  return props
    .map((p, i) => ({ p, i, at: at(p) }))
    .sort((x, y) => x.at[0].localeCompare(y.at[0]) || x.at[1] - y.at[1] || x.i - y.i)
    .map((x) => x.p);
}

function docOf(checker: ts.TypeChecker, sym: ts.Symbol): string | undefined {
  const text = ts.displayPartsToString(sym.getDocumentationComment(checker)).trim();
  return text || undefined;
}

// ---------------------------------------------------------------- main

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const check = process.argv.includes('--check');
  const current = (() => {
    try {
      return readFileSync(GENERATED_FILE, 'utf8');
    } catch {
      return '';
    }
  })();
  const relative = path.relative(ROOT, GENERATED_FILE);
  if (check && HASH_LINE.exec(current)?.[1] === inputsHash()) {
    console.error(`${relative} is up to date (inputs unchanged)`);
    process.exit(0);
  }
  const result = await generate();
  for (const p of result.problems) console.error(`warning: ${p}`);
  if (check) {
    if (current.replace(HASH_LINE, '') !== result.text.replace(HASH_LINE, '')) {
      console.error(`${relative} is stale: run npm run generate:openapi`);
      process.exit(1);
    }
    console.error(`${relative} is up to date (inputs changed, answers did not: npm run generate:openapi records the new inputs)`);
  } else if (current !== result.text) writeFileSync(GENERATED_FILE, result.text);
  console.error(`${result.routes} routes, ${(Date.now() - started) / 1000}s`);
}
