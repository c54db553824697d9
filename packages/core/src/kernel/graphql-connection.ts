/**
 * GitLab's connections (`first/after/last/before`, `nodes`, `edges { node cursor }`, `pageInfo`)
 * over the same database pagination as REST: a window of the list is one LIMIT/OFFSET query of
 * the use case (its `offset`), never a slice of rows fetched whole. Cursors are opaque to
 * clients (base64 of the position, as GitLab's are base64 of a keyset).
 */
import { GraphQLError, GraphQLInt, GraphQLString, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { MAX_PER_PAGE, type Page, type PageRequest } from './pagination.js';
import { isDomainError } from './errors.js';
import { toGraphqlError } from './graphql.js';

/** GitLab's `default_max_page_size 100`: the page size when neither `first` nor `last` is given, and the cap on both. */
export const GRAPHQL_MAX_PAGE_SIZE = MAX_PER_PAGE;

export const connectionArgs: GraphQLFieldConfigArgumentMap = {
  after: { type: GraphQLString, description: 'Returns the elements in the list that come after the specified cursor.' },
  before: { type: GraphQLString, description: 'Returns the elements in the list that come before the specified cursor.' },
  first: { type: GraphQLInt, description: 'Returns the first _n_ elements from the list.' },
  last: { type: GraphQLInt, description: 'Returns the last _n_ elements from the list.' },
};

export interface ConnectionArgs {
  after?: string | null;
  before?: string | null;
  first?: number | null;
  last?: number | null;
}

export interface Connection<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  count: () => Promise<number>;
}

/** One window of a list: a use case's page request at an offset. */
export type FetchWindow<T> = (request: PageRequest) => Promise<Page<T>>;

export function encodeCursor(position: number): string {
  return Buffer.from(JSON.stringify({ offset: position })).toString('base64');
}

function decodeCursor(cursor: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { offset?: unknown };
    if (Number.isInteger(value.offset) && (value.offset as number) >= 0) return value.offset as number;
  } catch {
    // falls through to GitLab's message
  }
  throw new GraphQLError('Please provide a valid cursor');
}

function pageSize(name: string, value: number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < 0) throw new GraphQLError(`Argument '${name}' on Field must be a non-negative integer`);
  return Math.min(value, GRAPHQL_MAX_PAGE_SIZE);
}

async function fetchAt<T>(fetch: FetchWindow<T>, offset: number, perPage: number): Promise<Page<T>> {
  const page = await fetch({ page: 1, per_page: perPage, offset });
  // A use case that does not hand its page request to paginate() would answer from the start.
  if (page.offset !== offset) throw new Error('connection window not honoured by the use case (pass the page request to paginate)');
  return page;
}

/** Resolves a connection field: the window `args` asks for, fetched through `fetch` (which must pass its request to paginate()). */
export async function resolveConnection<T>(args: ConnectionArgs, fetch: FetchWindow<T>): Promise<Connection<T>> {
  const first = pageSize('first', args.first);
  const last = pageSize('last', args.last);
  const start = args.after ? decodeCursor(args.after) + 1 : 0;
  let end = args.before ? decodeCursor(args.before) : undefined;
  let total: number | null | undefined;
  const countAll = async () => {
    if (total === undefined) total = (await fetchAt(fetch, 0, 1)).total;
    if (total === null) throw new GraphQLError('The list is too long to count (over 10,000 items)');
    return total;
  };
  let from = start;
  let to: number;
  if (first !== undefined) to = Math.min(start + first, end ?? Infinity);
  else if (last !== undefined) {
    end ??= await countAll();
    from = Math.max(start, end - last);
    to = end;
  } else to = Math.min(start + GRAPHQL_MAX_PAGE_SIZE, end ?? Infinity);
  let items: T[] = [];
  let more = false;
  if (to > from) {
    const page = await fetchAt(fetch, from, to - from);
    items = page.items;
    more = page.hasNext;
    if (page.total !== null && from === 0) total = page.total;
  } else if (end === undefined || from < end) {
    // An empty window (first: 0) still tells whether items follow.
    more = (await fetchAt(fetch, from, 1)).items.length > 0;
  }
  const edges = items.map((node, i) => ({ cursor: encodeCursor(from + i), node }));
  return {
    nodes: items,
    edges,
    pageInfo: {
      hasNextPage: more && (end === undefined || from + items.length < end),
      hasPreviousPage: from > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    count: countAll,
  };
}

/** An empty connection (no nodes, no pages). */
export function emptyConnection<T>(): Connection<T> {
  return { nodes: [], edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, count: async () => 0 };
}

/**
 * A connection the caller may not read answered as GitLab's authorization answers it: no
 * nodes (the records are filtered out), not an error; other domain errors with the REST message.
 */
export async function visibleConnection<T>(work: Promise<Connection<T>>): Promise<Connection<T>> {
  try {
    return await work;
  } catch (err) {
    if (isDomainError(err) && (err.code === 'not_found' || err.code === 'forbidden' || err.code === 'unauthorized')) return emptyConnection();
    throw toGraphqlError(err);
  }
}
