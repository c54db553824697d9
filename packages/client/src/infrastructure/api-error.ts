/** A GitLab-shaped error body (`{"message": ...}`, `{"error": ...}`), or the raw text of a non-JSON one. */
export type ApiErrorBody = { message?: unknown; error?: unknown; error_description?: string; [key: string]: unknown } | string;

export interface ApiErrorCause {
  request: { method: string; url: string };
}

/** An answer with status >= 400. `message` is GitLab's `error` or `message`, as GitLab clients show it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  declare readonly cause: ApiErrorCause;

  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    request: ApiErrorCause['request'],
  ) {
    super(messageOf(status, body), { cause: { request } });
  }
}

function messageOf(status: number, body: ApiErrorBody): string {
  if (typeof body === 'string') return body.trim() || `${status}`;
  const described = body.error ?? body.message;
  if (described === undefined || described === null) return `${status}`;
  return typeof described === 'string' ? described : JSON.stringify(described);
}
