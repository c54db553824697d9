/**
 * GitLab's GraphQL API (`POST /api/graphql`) through the client's requester (same token,
 * retries and errors). Answers with errors in the body (HTTP 200) come back as they are,
 * partial `data` included; answers the controller refuses (401 Invalid token, 422 Query too
 * large, …) throw ApiError like REST calls do.
 */
import type { Requester } from './requester.js';

export interface GraphqlError {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface GraphqlResponse<TData> {
  /** Absent when the request failed before execution (syntax, validation, limits). */
  data?: TData | null;
  errors?: GraphqlError[];
}

/**
 * A query text that carries its result and variables types (what codegen tools such as
 * graphql-codegen's `TypedDocumentString` produce), or a plain string typed at the call.
 */
export type GraphqlDocument<TData, TVariables> = string | (string & { __apiType?: (variables: TVariables) => TData });

export interface GraphqlOptions {
  operationName?: string;
  signal?: AbortSignal;
}

/** `<instance>/api/graphql`, from the requester's `<instance>/api/v4`. */
export function graphqlUrl(requester: Requester): string {
  return `${requester.apiUrl.replace(/\/api\/v4$/, '')}/api/graphql`;
}

export async function graphqlRequest<TData, TVariables>(
  requester: Requester,
  query: GraphqlDocument<TData, TVariables>,
  variables?: TVariables,
  options: GraphqlOptions = {},
): Promise<GraphqlResponse<TData>> {
  const body: Record<string, unknown> = { query: String(query) };
  if (variables !== undefined) body.variables = variables;
  if (options.operationName) body.operationName = options.operationName;
  const res = await requester.request<GraphqlResponse<TData>>('POST', graphqlUrl(requester), { body, signal: options.signal });
  return res.data;
}
