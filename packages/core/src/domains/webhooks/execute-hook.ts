/**
 * One delivery of a hook, as GitLab's WebHookService#execute: POST the JSON (or the hook's
 * custom template) with GitLab's headers and the hook's custom headers, within a timeout, then
 * record the delivery (web_hook_logs: request headers and data, response status, headers and
 * body, GitLab's truncation) and the hook's failure state in one transaction. No retry: a
 * failure counts towards auto-disabling (auto-disabling.ts) and the event is not sent again.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../access/context.js';
import { egressRefusal } from '../../kernel/egress.js';
import { GITLAB_COMPATIBLE_VERSION } from '../../kernel/version.js';
import { backoff, executable } from './auto-disabling.js';
import { openSealedMap } from './webhook.entity.js';
import type { WebHookRow } from './webhook.table.js';

/** GitLab's `webhook_timeout` default (gitlab.yml). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Stored for display only (WebHookService). */
export const RESPONSE_BODY_SIZE_LIMIT = 8 * 1024;
export const RESPONSE_HEADERS_COUNT_LIMIT = 50;
export const RESPONSE_HEADERS_SIZE_LIMIT = 1024;
/** Above this the log keeps `{"oversize": true}` instead of the request data (and it cannot be resent). */
export const MAX_LOGGED_REQUEST_DATA_BYTES = 4 * 1024 * 1024;
export const OVERSIZE_REQUEST_DATA = { oversize: true } as const;
export const INTERNAL_ERROR = 'internal error';
const REDACTED = '[REDACTED]';
/** Ruby's URI::MailTo::EMAIL_REGEXP, which GitLab's WebHookLog#redact_user_emails applies to every value (not `git@host:a/b.git`). */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export type ExecutionResult =
  | { status: 'success'; httpStatus: number; body: string; logId: number }
  | { status: 'error'; message: string; logId: number | null };

export interface ExecuteOptions {
  /** Same for every hook an event goes to (X-Gitlab-Event-UUID). */
  eventUuid: string;
  /** Kept across a resend (Idempotency-Key). */
  idempotencyKey?: string;
  /** A test or resend runs even when the hook is disabled. */
  force?: boolean;
  /** False for a resend: the logged data was rendered already. */
  template?: boolean;
}

/** `issue_hooks` → `Issue Hook`; system hooks always `System Hook` (WebHookService.hook_to_event). */
export function hookToEvent(trigger: string, hook: Pick<WebHookRow, 'type'>): string {
  if (hook.type === 'SystemHook') return 'System Hook';
  return trigger
    .replace(/s$/, '')
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** `{key}` placeholders of the URL replaced by the hook's URL variables; null when one has no value. */
export function interpolateUrl(url: string, variables: Record<string, string>): string | null {
  let missing = false;
  const out = url.replace(/\{([A-Za-z0-9_.-]+)\}/g, (_m, key: string) => {
    if (!(key in variables)) missing = true;
    return variables[key] ?? '';
  });
  return missing ? null : out;
}

/** Credentials in a URL masked for the log (Gitlab::UrlSanitizer.sanitize_masked_url). */
function maskedUrl(url: string): string {
  return url.replace(/^(\w+:\/\/)[^/@]*@/, '$1*****:*****@');
}

function truncateBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  const ellipsis = '…';
  let cut = bytes.subarray(0, limit - Buffer.byteLength(ellipsis)).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1); // a character cut in half
  return cut + ellipsis;
}

function capitalizeHeader(name: string): string {
  return name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('-');
}

function redactEmails(value: unknown): unknown {
  if (typeof value === 'string') return EMAIL.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map(redactEmails);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redactEmails(v)]));
  }
  return value;
}

/** The hook's custom template rendered with `{{a.b}}` from the data (GitLab's custom_webhook_template). */
function renderTemplate(template: string, data: Record<string, unknown>): unknown {
  const rendered = template.replace(/{{(.+?)}}/g, (_m, path: string) => {
    let v: unknown = data;
    for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    const json = JSON.stringify(v ?? null);
    return typeof v === 'string' ? json.slice(1, -1) : json;
  });
  try {
    return JSON.parse(rendered) as unknown;
  } catch (err) {
    throw new Error(`Error while parsing rendered custom webhook template: ${(err as Error).message}`);
  }
}

function describeError(err: unknown): string {
  const refusal = egressRefusal(err);
  if (refusal) return refusal.message;
  if (err instanceof Error && err.name === 'TimeoutError') return 'execution expired';
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i++) {
    if (e instanceof Error) parts.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(': ').slice(0, 1000) || String(err);
}

/** Sends `data` to the hook now and records the delivery; never throws for the target's failures. */
export async function executeHook(deps: Deps, hook: WebHookRow, data: Record<string, unknown>, trigger: string, options: ExecuteOptions): Promise<ExecutionResult> {
  const startedAt = deps.clock.now();
  if (!options.force && !executable(hook, startedAt)) return { status: 'error', message: 'Hook disabled', logId: null };
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${GITLAB_COMPATIBLE_VERSION}`,
    'Idempotency-Key': idempotencyKey,
    'X-Gitlab-Event': hookToEvent(trigger, hook),
    'X-Gitlab-Webhook-UUID': randomUUID(),
    'X-Gitlab-Instance': deps.config.externalUrl,
  };
  const token = hook.token_encrypted ? deps.secrets.decrypt(hook.token_encrypted).replace(/[\r\n]/g, '') : null;
  if (token) headers['X-Gitlab-Token'] = token;
  headers['X-Gitlab-Event-UUID'] = options.eventUuid;
  const custom = openSealedMap(deps.secrets, hook.custom_headers_encrypted);
  const url = deps.secrets.decrypt(hook.url_encrypted);
  const logged = {
    headers: { ...Object.fromEntries(Object.keys(custom).map((k) => [k, REDACTED])), ...headers, ...(token ? { 'X-Gitlab-Token': REDACTED } : {}) },
    data: data as unknown,
  };
  let response: { status: number; headers: Record<string, string>; body: string } | null = null;
  let error: string | null = null;
  const start = performance.now();
  try {
    const payload = hook.custom_webhook_template && options.template !== false ? renderTemplate(hook.custom_webhook_template, data) : data;
    logged.data = payload;
    const target = interpolateUrl(url, openSealedMap(deps.secrets, hook.url_variables_encrypted)) ?? url;
    const parsed = new URL(target);
    const auth: Record<string, string> = {};
    if (parsed.username || parsed.password) {
      auth.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    const res = await deps.egress.fetch(parsed.toString(), {
      method: 'POST',
      headers: { ...custom, ...headers, ...auth },
      body: JSON.stringify(payload),
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const responseHeaders: Record<string, string> = {};
    let count = 0;
    res.headers.forEach((value, name) => {
      if (count++ < RESPONSE_HEADERS_COUNT_LIMIT) responseHeaders[capitalizeHeader(name)] = truncateBytes(value, RESPONSE_HEADERS_SIZE_LIMIT);
    });
    response = { status: res.status, headers: responseHeaders, body: truncateBytes(await res.text(), RESPONSE_BODY_SIZE_LIMIT) };
  } catch (err) {
    error = describeError(err);
  }
  const duration = (performance.now() - start) / 1000;
  const ok = response !== null && response.status >= 200 && response.status < 400;
  let requestData = redactEmails(logged.data);
  if (Buffer.byteLength(JSON.stringify(requestData)) > MAX_LOGGED_REQUEST_DATA_BYTES) requestData = OVERSIZE_REQUEST_DATA;
  const now = deps.clock.now();
  const logId = await deps.db.transaction().execute(async (trx) => {
    let q = trx.selectFrom('web_hooks').selectAll().where('id', '=', hook.id);
    if (deps.dialect === 'postgres') q = q.forUpdate();
    const current = await q.executeTakeFirst();
    if (!current) return null; // deleted while delivering
    const log = await trx
      .insertInto('web_hook_logs')
      .values({
        web_hook_id: hook.id,
        trigger,
        url: maskedUrl(url),
        request_headers: JSON.stringify(logged.headers),
        request_data: JSON.stringify(requestData),
        response_headers: JSON.stringify(response?.headers ?? {}),
        response_body: response?.body ?? '',
        response_status: response ? String(response.status) : INTERNAL_ERROR,
        execution_duration: duration,
        internal_error_message: error,
        created_at: now.toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const next = ok
      ? current.recent_failures !== 0 || current.disabled_until !== null
        ? { recent_failures: 0, disabled_until: null }
        : null
      : backoff(current, now);
    if (next) await trx.updateTable('web_hooks').set(next).where('id', '=', hook.id).execute();
    return log.id;
  });
  if (response) return { status: 'success', httpStatus: response.status, body: response.body, logId: logId! };
  return { status: 'error', message: error ?? INTERNAL_ERROR, logId };
}
