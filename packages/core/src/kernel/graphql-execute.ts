/**
 * Runs one GraphQL request the way GitLab's GraphqlController does: the query text (at most
 * 10,000 characters), variables as an object or a JSON string, `operationName`, Apollo-style
 * batches (a JSON array), no mutations over GET, GitLab's depth and complexity limits, and
 * GitLab's answer shape `{"data": …, "errors": [{"message", "locations", "path"}]}` with
 * partial data when some fields failed.
 */
import {
  execute,
  getNamedType,
  getOperationAST,
  GraphQLError,
  isLeafType,
  isObjectType,
  Kind,
  parse,
  validate,
  valueFromASTUntyped,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { GRAPHQL_MAX_PAGE_SIZE } from './graphql-connection.js';
import { RESOURCE_NOT_AVAILABLE, type GqlContext } from './graphql.js';

/**
 * GitLab's limits (app/graphql/gitlab_schema.rb: DEFAULT_/AUTHENTICATED_/ADMIN_MAX_COMPLEXITY,
 * DEFAULT_/AUTHENTICATED_MAX_DEPTH): complexity 200 anonymous, 250 signed in, 300 for
 * administrators; depth 15 anonymous, 20 signed in (administrators too), taken as they are so a
 * query GitLab accepts is accepted here and one it refuses is refused. GitLab raises the
 * anonymous limit to 217 for its cached introspection query; here fields under `__schema` and
 * `__type` cost nothing instead (they read the in-memory schema, no database), so any client's
 * introspection query loads without a token.
 */
export const GRAPHQL_LIMITS = {
  anonymous: { maxDepth: 15, maxComplexity: 200 },
  authenticated: { maxDepth: 20, maxComplexity: 250 },
  admin: { maxDepth: 20, maxComplexity: 300 },
} as const;

/** GitLab's MAX_QUERY_SIZE, in characters. */
export const MAX_QUERY_SIZE = 10_000;

export interface GraphqlLimits {
  maxDepth: number;
  maxComplexity: number;
}


export interface GraphqlAnswer {
  status: number;
  body: unknown;
}

export interface GraphqlExecution {
  schema: GraphQLSchema;
  ctx: GqlContext;
  method: string;
  who: 'anonymous' | 'authenticated' | 'admin';
  /** False for a token without the `api` scope (`read_api`): its mutations are refused. */
  mayMutate: boolean;
  /** Errors that are no GraphQL or domain error (answered as "Internal server error"). */
  onInternalError?: (err: unknown) => void;
}

/** GitLab's error answer of the controller (no data). */
const controllerError = (status: number, message: string): GraphqlAnswer => ({ status, body: { errors: [{ message }] } });

/** Executes a request body (an object, or an array for a batch). */
export async function executeGraphqlRequest(body: unknown, run: GraphqlExecution): Promise<GraphqlAnswer> {
  if (Array.isArray(body)) {
    const size = body.reduce((n: number, q) => n + String((q as { query?: unknown })?.query ?? '').length, 0);
    if (size > MAX_QUERY_SIZE) return controllerError(422, 'Query too large');
    const answers: unknown[] = [];
    for (const one of body) {
      const answer = await executeOne((one ?? {}) as Record<string, unknown>, run);
      if (answer.status !== 200) return answer;
      answers.push(answer.body);
    }
    return { status: 200, body: answers };
  }
  return executeOne((body ?? {}) as Record<string, unknown>, run);
}

async function executeOne(request: Record<string, unknown>, run: GraphqlExecution): Promise<GraphqlAnswer> {
  const query = typeof request.query === 'string' ? request.query : '';
  if (query.length > MAX_QUERY_SIZE) return controllerError(422, 'Query too large');
  let variables: Record<string, unknown> | undefined;
  try {
    variables = variablesOf(request.variables);
  } catch (err) {
    return controllerError(422, (err as Error).message);
  }
  const operationName = typeof request.operationName === 'string' && request.operationName !== '' ? request.operationName : undefined;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    return { status: 200, body: { errors: [formatError(err as GraphQLError)] } };
  }
  const operation = getOperationAST(document, operationName);
  if (operation?.operation === 'mutation' && (run.method === 'GET' || run.method === 'HEAD')) {
    return controllerError(422, `Mutations are forbidden in ${run.method} requests`);
  }
  if (operation?.operation === 'mutation' && !run.mayMutate) return { status: 200, body: { errors: [{ message: RESOURCE_NOT_AVAILABLE }], data: null } };
  const validation = validate(run.schema, document, undefined, { maxErrors: 5 });
  if (validation.length) return { status: 200, body: { errors: validation.map(formatError) } };
  if (operation) {
    const limits: GraphqlLimits = GRAPHQL_LIMITS[run.who];
    const fragments = Object.fromEntries(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const root = operation.operation === 'mutation' ? run.schema.getMutationType() : operation.operation === 'subscription' ? run.schema.getSubscriptionType() : run.schema.getQueryType();
    if (root) {
      const { depth, complexity } = measure(run.schema, root, operation.selectionSet, fragments, variables ?? {});
      const errors: { message: string }[] = [];
      if (depth > limits.maxDepth) errors.push({ message: `Query has depth of ${depth}, which exceeds max depth of ${limits.maxDepth}` });
      if (complexity > limits.maxComplexity) errors.push({ message: `Query has complexity of ${complexity}, which exceeds max complexity of ${limits.maxComplexity}` });
      if (errors.length) return { status: 200, body: { errors } };
    }
  }
  const result = await execute({ schema: run.schema, document, variableValues: variables, operationName, contextValue: run.ctx });
  const body: Record<string, unknown> = {};
  if (result.errors?.length) {
    body.errors = result.errors.map((err) => {
      if (err.originalError && !(err.originalError instanceof GraphQLError)) {
        run.onInternalError?.(err.originalError);
        return formatError(new GraphQLError('Internal server error', { nodes: err.nodes, path: err.path }));
      }
      return formatError(err);
    });
  }
  if ('data' in result) body.data = result.data;
  return { status: 200, body };
}

function variablesOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    const parsed = JSON.parse(value) as unknown;
    return variablesOf(parsed);
  }
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new Error(`Unexpected parameter: ${JSON.stringify(value)}`);
}

/** GitLab's error entry: message, locations, path (when known), extensions when a resolver set them. */
function formatError(err: GraphQLError): Record<string, unknown> {
  const out: Record<string, unknown> = { message: err.message };
  if (err.locations) out.locations = err.locations;
  if (err.path) out.path = err.path;
  if (err.extensions && Object.keys(err.extensions).length) out.extensions = err.extensions;
  return out;
}

/**
 * Depth and complexity of a selection, statically, fragments expanded, GitLab's way
 * (app/graphql/types/base_field.rb): every field costs 1 plus its children; a field that
 * takes `sort` costs 1 more and one that takes `search` 5 more; a connection's cost grows
 * by 1% per item it may load (`first`/`last`, at most the page size of 100), except when
 * asked for specific `iid`/`iids`. Introspection fields count for depth, not complexity.
 */
function measure(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  seen: Set<string> = new Set(),
): { depth: number; complexity: number } {
  let depth = 0;
  let complexity = 0;
  for (const selection of selectionSet.selections) {
    let inner: { depth: number; complexity: number };
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      let type: GraphQLNamedType | undefined;
      if (name === '__schema') type = schema.getType('__Schema');
      else if (name === '__type') type = schema.getType('__Type');
      else if (name !== '__typename' && isObjectType(parent)) {
        const field = parent.getFields()[name];
        type = field ? getNamedType(field.type) : undefined;
      } else if (name !== '__typename' && 'getFields' in parent) {
        const field = (parent as { getFields(): Record<string, { type: Parameters<typeof getNamedType>[0] }> }).getFields()[name];
        type = field ? getNamedType(field.type) : undefined;
      }
      if (name === '__schema' || name === '__type') {
        const child = measure(schema, type!, selection.selectionSet!, fragments, variables, seen);
        inner = { depth: child.depth + 1, complexity: 0 };
      } else if (!selection.selectionSet || !type || isLeafType(type)) {
        inner = { depth: 1, complexity: 1 };
      } else {
        const child = measure(schema, type, selection.selectionSet, fragments, variables, seen);
        const args: Record<string, unknown> = {};
        for (const arg of selection.arguments ?? []) args[arg.name.value] = valueFromASTUntyped(arg.value, variables);
        let cost = 1 + child.complexity;
        if ('sort' in args) cost += 1;
        if ('search' in args) cost += 5;
        if (type.name.endsWith('Connection') && !('iid' in args) && !('iids' in args)) {
          const sizes = [args.first, args.last, GRAPHQL_MAX_PAGE_SIZE].filter((v): v is number => typeof v === 'number' && v >= 0);
          cost += Math.floor(cost * Math.min(...sizes) * 0.01);
        }
        inner = { depth: child.depth + 1, complexity: cost };
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
      inner = measure(schema, on ?? parent, selection.selectionSet, fragments, variables, seen);
    } else {
      const fragment = fragments[selection.name.value];
      if (!fragment || seen.has(fragment.name.value)) continue;
      const on = schema.getType(fragment.typeCondition.name.value) ?? parent;
      inner = measure(schema, on, fragment.selectionSet, fragments, variables, new Set([...seen, fragment.name.value]));
    }
    depth = Math.max(depth, inner.depth);
    complexity += inner.complexity;
  }
  return { depth, complexity };
}
