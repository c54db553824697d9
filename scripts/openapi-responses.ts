/**
 * Generates packages/core/src/generated/openapi-responses.ts: the RESPONSES of every route,
 * read from the route declarations with the TypeScript compiler API.
 *
 * For each `route(method, path, options, handler)` call in packages/core/src/domains/** and
 * packages/core/src/test-harness:
 *  - the path is evaluated statically (string constants, template literals, `for … of` over
 *    literal arrays, `.map` over literal arrays, parameters of local helpers from their call
 *    sites, literal-union types), giving the exact `METHOD path` keys the route table holds;
 *  - the handler's replies are traced through its return statements (and the local helpers it
 *    returns from): `ok`/`created`/`accepted`/`noContent`/`paged`/`text` and `{ kind: … }`
 *    literals give the status, the content type and, for JSON, the TypeScript type of the body;
 *  - body types become JSON Schema 2020-12; named types (interfaces, aliases) go to
 *    `components.schemas` and are referenced.
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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORE = path.join(ROOT, 'packages/core/src');
export const GENERATED_FILE = path.join(CORE, 'generated/openapi-responses.ts');
const ROUTE_MODULE = path.join(CORE, 'kernel/route.ts');

type Schema = Record<string, unknown>;

/** One documented answer of a route (the shape kernel/openapi.ts reads). */
export interface ResponseDecl {
  status: number;
  kind: 'json' | 'page' | 'empty' | 'text' | 'stream' | 'redirect';
  /** Content types (text/stream); absent for json/page/empty/redirect. `*\/*` when computed at run time. */
  contentTypes?: string[];
  /** JSON Schema of the body (json/page: the item), absent when none. */
  schema?: Schema;
}

interface Found {
  keys: string[];
  file: string;
  line: number;
  responses: ResponseDecl[];
  problems: string[];
}

const WILD = '\u0000';
/** Parameters of the helper being traced → the arguments of the call that led there. */
const bindings = new Map<ts.Node, ts.Expression>();

export interface GenerateResult {
  text: string;
  routes: Found[];
  problems: string[];
}

const HASH_LINE = /^\/\/ inputs: ([0-9a-f]+)\n/m;

/** sha256 of everything the output depends on: core's sources (not the generated file), this script, TypeScript's version. */
export function inputsHash(): string {
  const hash = createHash('sha256').update(ts.version).update(readFileSync(fileURLToPath(import.meta.url)));
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

export function generate(): GenerateResult {
  // Every domain file that declares routes (most are *.routes.ts; a few use cases keep theirs beside them).
  const domains = path.join(CORE, 'domains');
  const dirs = [...readdirSync(domains).map((d) => path.join(domains, d)), path.join(CORE, 'test-harness')];
  const files: string[] = [];
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      const file = path.join(dir, f);
      if (f.endsWith('.ts') && /\broute\(/.test(readFileSync(file, 'utf8'))) files.push(file);
    }
  }
  files.sort();
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const schemas = new SchemaBuilder(checker);
  const found: Found[] = [];

  for (const file of files) {
    const sf = program.getSourceFile(file)!;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && isKernel(checker, node.expression, 'route') && node.arguments.length === 4) {
        found.push(analyzeRoute(checker, schemas, sf, node));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  const problems: string[] = [];
  const table: Record<string, ResponseDecl[]> = {};
  const owner = new Map<string, string>();
  for (const r of found) {
    const where = `${path.relative(ROOT, r.file)}:${r.line}`;
    for (const p of r.problems) problems.push(`${where}: ${p}`);
    if (!r.responses.length) continue;
    for (const key of r.keys) {
      if (key.includes(WILD)) {
        problems.push(`${where}: path not resolved statically (${key.replace(WILD, '…')})`);
        continue;
      }
      const text = JSON.stringify(r.responses);
      if (table[key] && JSON.stringify(table[key]) !== text) problems.push(`${where}: ${key} also declared at ${owner.get(key)} with other responses`);
      if (!table[key]) {
        table[key] = r.responses;
        owner.set(key, where);
      }
    }
  }
  const sortedTable = Object.fromEntries(Object.keys(table).sort().map((k) => [k, table[k]]));
  const components = schemas.components();
  const text = [
    '// GENERATED by scripts/openapi-responses.ts from the route handlers and the entity types: do not edit.',
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
    '/** `METHOD path` → the answers its handler gives (success and redirect statuses). */',
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
  return { text, routes: found, problems };
}

/** `text` as the body of a template literal whose value is `text` again. */
function templateText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
}

function declOf(checker: ts.TypeChecker, expr: ts.Expression): ts.Declaration | undefined {
  let sym = ts.isShorthandPropertyAssignment(expr.parent) && expr.parent.name === expr ? checker.getShorthandAssignmentValueSymbol(expr.parent) : checker.getSymbolAtLocation(expr);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  return sym?.declarations?.[0];
}

function isKernel(checker: ts.TypeChecker, expr: ts.Expression, name?: string): boolean {
  const decl = declOf(checker, expr);
  if (!decl || path.resolve(decl.getSourceFile().fileName) !== ROUTE_MODULE) return false;
  return name === undefined || (ts.isVariableDeclaration(decl) || ts.isFunctionDeclaration(decl) ? decl.name?.getText() === name : false);
}

function unwrap(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isAwaitExpression(e)) e = e.expression;
    else if (ts.isTypeAssertionExpression(e)) e = e.expression;
    else return e;
  }
}

// ---------------------------------------------------------------- paths

function evalStrings(checker: ts.TypeChecker, expr: ts.Expression, depth = 0): string[] {
  if (depth > 12) return [WILD];
  const e = unwrap(expr);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
  if (ts.isTemplateExpression(e)) {
    let acc = [e.head.text];
    for (const span of e.templateSpans) {
      const vals = evalStrings(checker, span.expression, depth + 1);
      acc = acc.flatMap((a) => vals.map((v) => a + v + span.literal.text));
    }
    return acc;
  }
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const l = evalStrings(checker, e.left, depth + 1);
    const r = evalStrings(checker, e.right, depth + 1);
    return l.flatMap((a) => r.map((b) => a + b));
  }
  if (ts.isConditionalExpression(e)) return [...evalStrings(checker, e.whenTrue, depth + 1), ...evalStrings(checker, e.whenFalse, depth + 1)];
  if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
    const decl = declOf(checker, e);
    if (decl && ts.isVariableDeclaration(decl)) {
      // `for (const x of ['a', 'b'])`
      const list = decl.parent?.parent;
      if (list && ts.isForOfStatement(list) && ts.isVariableDeclarationList(decl.parent) && decl.parent.declarations[0] === decl) {
        const items = arrayItems(checker, list.expression, depth);
        if (items) return items;
      } else if (decl.initializer && decl.parent.flags & ts.NodeFlags.Const) {
        return evalStrings(checker, decl.initializer, depth + 1);
      }
    }
    if (decl && ts.isParameter(decl)) {
      const bound = bindings.get(decl);
      if (bound) return evalStrings(checker, bound, depth + 1);
      const fromCalls = parameterValues(checker, decl, depth);
      if (fromCalls) return fromCalls;
    }
    if (decl && ts.isPropertyAssignment(decl)) return evalStrings(checker, decl.initializer, depth + 1);
  }
  return fromType(checker.getTypeAtLocation(e));
}

function fromType(t: ts.Type): string[] {
  const parts = t.isUnion() ? t.types : [t];
  if (parts.every((p) => p.isStringLiteral())) return parts.map((p) => (p as ts.StringLiteralType).value);
  return [WILD];
}

function arrayItems(checker: ts.TypeChecker, expr: ts.Expression, depth: number): string[] | undefined {
  let e = unwrap(expr);
  if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
    const decl = declOf(checker, e);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer) e = unwrap(decl.initializer);
  }
  if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((el) => evalStrings(checker, el, depth + 1));
  const t = checker.getTypeAtLocation(e);
  const idx = checker.getIndexTypeOfType(t, ts.IndexKind.Number);
  if (idx) {
    const v = fromType(idx);
    if (!v.includes(WILD)) return v;
  }
  return undefined;
}

/** A parameter's values: from `.map` over a literal array, or from every call of its (local) function. */
function parameterValues(checker: ts.TypeChecker, param: ts.ParameterDeclaration, depth: number): string[] | undefined {
  const fn = param.parent;
  const index = fn.parameters.indexOf(param);
  // `[...].map((x) => route(...))`
  if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
    const call = fn.parent;
    if (ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && ['map', 'flatMap', 'forEach'].includes(call.expression.name.text) && index === 0) {
      return arrayItems(checker, call.expression.expression, depth);
    }
  }
  let nameNode: ts.Node | undefined;
  if (ts.isFunctionDeclaration(fn)) nameNode = fn.name;
  else if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent)) nameNode = fn.parent.name;
  if (!nameNode) return undefined;
  const target = checker.getSymbolAtLocation(nameNode);
  if (!target) return undefined;
  const values: string[] = [];
  let calls = 0;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && checker.getSymbolAtLocation(node.expression) === target) {
      calls++;
      const arg = node.arguments[index];
      values.push(...(arg ? evalStrings(checker, arg, depth + 1) : [WILD]));
    }
    ts.forEachChild(node, visit);
  };
  visit(fn.getSourceFile());
  return calls ? [...new Set(values)] : undefined;
}

// ---------------------------------------------------------------- replies

interface Trace {
  checker: ts.TypeChecker;
  schemas: SchemaBuilder;
  problems: string[];
  seen: Set<ts.Node>;
}

function analyzeRoute(checker: ts.TypeChecker, schemas: SchemaBuilder, sf: ts.SourceFile, call: ts.CallExpression): Found {
  const [methodArg, pathArg, options, handler] = call.arguments;
  const methods = evalStrings(checker, methodArg!);
  const paths = evalStrings(checker, pathArg!);
  const keys = methods.flatMap((m) => paths.map((p) => `${m} ${p}`));
  const t: Trace = { checker, schemas, problems: [], seen: new Set() };
  // A route that declares its `response` is documented from the declaration.
  const declared = ts.isObjectLiteralExpression(options!) && Boolean(prop(options, 'response'));
  const raw = declared ? [] : replyOfFunctionValue(t, handler!);
  const responses = merge(raw);
  const line = sf.getLineAndCharacterOfPosition(call.getStart()).line + 1;
  return { keys, file: sf.fileName, line, responses, problems: t.problems };
}

/** The replies of a function-valued expression (the handler). */
function replyOfFunctionValue(t: Trace, expr: ts.Expression): ResponseDecl[] {
  const e = unwrap(expr);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isFunctionDeclaration(e)) return repliesOfBody(t, e);
  if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
    const decl = declOf(t.checker, e);
    if (decl && ts.isFunctionDeclaration(decl)) return repliesOfBody(t, decl);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer) return replyOfFunctionValue(t, decl.initializer);
  }
  if (ts.isCallExpression(e)) {
    // A handler factory: the functions it returns.
    const decl = declOf(t.checker, e.expression);
    const fn = decl && functionOf(decl);
    if (fn) return returnedExpressions(fn).flatMap((r) => replyOfFunctionValue(t, r));
  }
  t.problems.push(`handler not traced: ${e.getText().slice(0, 80)}`);
  return [];
}

function functionOf(decl: ts.Declaration): ts.SignatureDeclaration | undefined {
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) return decl.body ? decl : undefined;
  if (ts.isVariableDeclaration(decl) && decl.initializer) {
    const init = unwrap(decl.initializer);
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
  }
  return undefined;
}

function returnedExpressions(fn: ts.SignatureDeclaration): ts.Expression[] {
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (!body) return [];
  if (!ts.isBlock(body)) return [body];
  const out: ts.Expression[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isReturnStatement(node) && node.expression) out.push(node.expression);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
  return out;
}

function repliesOfBody(t: Trace, fn: ts.SignatureDeclaration, args: readonly ts.Expression[] = []): ResponseDecl[] {
  if (t.seen.has(fn)) return [];
  t.seen.add(fn);
  const bound: ts.Node[] = [];
  fn.parameters.forEach((p, i) => {
    if (args[i] && !bindings.has(p)) {
      bindings.set(p, args[i]);
      bound.push(p);
    }
  });
  const out = returnedExpressions(fn).flatMap((r) => replyOf(t, r));
  for (const p of bound) bindings.delete(p);
  t.seen.delete(fn);
  return out;
}

function numberOf(t: Trace, expr: ts.Expression | undefined, fallback: number): number[] {
  if (!expr) return [fallback];
  const e = unwrap(expr);
  if (ts.isNumericLiteral(e)) return [Number(e.text)];
  if (ts.isIdentifier(e)) {
    const decl = declOf(t.checker, e);
    const bound = decl && bindings.get(decl);
    if (bound) return numberOf(t, bound, fallback);
  }
  const ty = t.checker.getTypeAtLocation(e);
  const parts = ty.isUnion() ? ty.types : [ty];
  if (parts.every((p) => p.isNumberLiteral())) return parts.map((p) => (p as ts.NumberLiteralType).value);
  t.problems.push(`status not static: ${e.getText().slice(0, 60)}`);
  return [fallback];
}

function contentTypes(t: Trace, expr: ts.Expression | undefined, fallback: string): string[] {
  if (!expr) return [fallback];
  const v = evalStrings(t.checker, expr);
  return v.map((s) => (s.includes(WILD) ? '*/*' : s));
}

function prop(obj: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined | null {
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
  }
  return obj.properties.some((p) => ts.isSpreadAssignment(p)) ? null : undefined;
}

function replyOf(t: Trace, expr: ts.Expression): ResponseDecl[] {
  const e = unwrap(expr);
  const { checker } = t;
  if (ts.isConditionalExpression(e)) return [...replyOf(t, e.whenTrue), ...replyOf(t, e.whenFalse)];
  if (ts.isBinaryExpression(e) && (e.operatorToken.kind === ts.SyntaxKind.BarBarToken || e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)) {
    return [...replyOf(t, e.left), ...replyOf(t, e.right)];
  }
  if (ts.isCallExpression(e)) {
    const callee = e.expression;
    if (isKernel(checker, callee)) {
      const name = (declOf(checker, callee) as ts.VariableDeclaration).name.getText();
      const [a0, a1, a2] = e.arguments;
      const bodySchema = (x: ts.Expression) => t.schemas.of(checker.getTypeAtLocation(x), x);
      switch (name) {
        case 'ok':
          return [{ status: 200, kind: 'json', schema: bodySchema(a0!) }];
        case 'created':
          return [{ status: 201, kind: 'json', schema: bodySchema(a0!) }];
        case 'accepted':
          return [{ status: 202, kind: 'json', schema: a0 ? bodySchema(a0) : { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false } }];
        case 'noContent':
          return [{ status: 204, kind: 'empty' }];
        case 'paged': {
          const page = checker.getTypeAtLocation(a0!);
          const items = checker.getPropertyOfType(page, 'items');
          const itemsType = items && checker.getTypeOfSymbolAtLocation(items, a0!);
          const item = itemsType && checker.isArrayType(itemsType) ? checker.getTypeArguments(itemsType as ts.TypeReference)[0] : undefined;
          return [{ status: 200, kind: 'page', schema: item ? t.schemas.of(item, a0!) : {} }];
        }
        case 'text':
          return numberOf(t, a2, 200).map((status) => ({ status, kind: 'text', contentTypes: contentTypes(t, a1, 'text/plain') }));
      }
    }
    const decl = declOf(checker, callee);
    const fn = decl && functionOf(decl);
    if (fn) return repliesOfBody(t, fn, e.arguments);
    // `.then(ok)` and the like are not traced.
    t.problems.push(`reply not traced: ${e.getText().slice(0, 80)}`);
    return [];
  }
  if (ts.isObjectLiteralExpression(e)) {
    const kindExpr = prop(e, 'kind');
    const kinds = kindExpr ? evalStrings(checker, kindExpr) : [];
    if (!kinds.length || kinds.includes(WILD)) {
      t.problems.push(`reply kind not static: ${e.getText().slice(0, 80)}`);
      return [];
    }
    return kinds.flatMap((kind) =>
      numberOf(t, prop(e, 'status') ?? undefined, 200).map((status): ResponseDecl => {
        switch (kind) {
          case 'json':
            return { status, kind: 'json', schema: t.schemas.of(checker.getTypeAtLocation(prop(e, 'body')!), e) };
          case 'page':
            return { status, kind: 'page', schema: {} };
          case 'text':
          case 'stream':
            return { status, kind, contentTypes: contentTypes(t, prop(e, 'contentType') ?? undefined, '*/*') };
          case 'redirect':
            return { status, kind: 'redirect' };
          default:
            return { status, kind: 'empty' };
        }
      }),
    );
  }
  if (ts.isIdentifier(e)) {
    const decl = declOf(checker, e);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer) return replyOf(t, decl.initializer);
  }
  t.problems.push(`reply not traced: ${e.getText().slice(0, 80)}`);
  return [];
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
      for (const p of c.getPropertiesOfType(type)) {
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
      const values = literals.map((t) => (t as ts.LiteralType).value as string | number);
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
  const result = generate();
  for (const p of result.problems) console.error(`warning: ${p}`);
  if (check) {
    if (current.replace(HASH_LINE, '') !== result.text.replace(HASH_LINE, '')) {
      console.error(`${relative} is stale: run npm run generate:openapi`);
      process.exit(1);
    }
    console.error(`${relative} is up to date (inputs changed, answers did not: npm run generate:openapi records the new inputs)`);
  } else if (current !== result.text) writeFileSync(GENERATED_FILE, result.text);
  console.error(`${result.routes.length} route declarations, ${(Date.now() - started) / 1000}s`);
}
