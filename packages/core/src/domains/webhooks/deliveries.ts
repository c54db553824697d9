/**
 * The hooks' recent deliveries (`GET …/hooks/:hook_id/events`), resending one
 * (`POST …/events/:hook_log_id/resend`), and test deliveries (`POST …/hooks/:hook_id/test/:trigger`,
 * system hooks `POST /hooks/:hook_id`), as GitLab's API::Hooks::Events, ResendHook, TriggerTest and Test.
 */
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import { NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { executeHook, OVERSIZE_REQUEST_DATA, type ExecutionResult } from './execute-hook.js';
import { findHook, type HookParent } from './hooks.js';
import { toHookLogEntity, type HookLogEntity } from './webhook.entity.js';
import type { HookEventsQuery, HookTrigger } from './webhook.schema.js';
import { testPayload } from './test-payloads.js';

/** WebHookLog.recent: from the start of the day two days ago. */
const RECENT_DAYS = 2;

function statusCodes(filters: string[]): string[] {
  const codes = new Set<string>();
  for (const f of filters) {
    const range = f === 'successful' ? [200, 299] : f === 'client_failure' ? [400, 499] : f === 'server_failure' ? [500, 599] : null;
    if (range) for (let c = range[0]!; c <= range[1]!; c++) codes.add(String(c));
    else codes.add(f);
  }
  return [...codes];
}

export async function listHookEvents(ctx: Ctx, parent: HookParent, input: HookEventsQuery): Promise<Page<HookLogEntity>> {
  const hook = await findHook(ctx, parent, input.hook_id);
  const since = ctx.clock.now();
  since.setUTCDate(since.getUTCDate() - RECENT_DAYS);
  since.setUTCHours(0, 0, 0, 0);
  let q = ctx.db.selectFrom('web_hook_logs').selectAll().where('web_hook_id', '=', hook.id).where('created_at', '>=', since.toISOString());
  if (input.status?.length) q = q.where('response_status', 'in', statusCodes(input.status));
  return paginate(ctx.db, q.orderBy('created_at', 'desc').orderBy('id', 'desc'), { page: input.page, per_page: Number(input.per_page) }, (rows) =>
    rows.map(toHookLogEntity),
  );
}

/** POST …/events/:hook_log_id/resend: the logged request again (same Idempotency-Key), now; 201 with the status. */
export async function resendHookEvent(ctx: Ctx, parent: HookParent, hookId: number, logId: number): Promise<{ response_status: number }> {
  const hook = await findHook(ctx, parent, hookId);
  const log = await ctx.db.selectFrom('web_hook_logs').selectAll().where('id', '=', logId).where('web_hook_id', '=', hook.id).executeTakeFirst();
  if (!log) throw new NotFoundError(null, { exact: '404 Not found' });
  const data = JSON.parse(log.request_data) as Record<string, unknown>;
  if (JSON.stringify(data) === JSON.stringify(OVERSIZE_REQUEST_DATA)) throw new UnprocessableError('Request data is too large');
  const headers = JSON.parse(log.request_headers) as Record<string, string>;
  const result = await executeHook(ctx, hook, data, log.trigger, { eventUuid: randomUUID(), idempotencyKey: headers['Idempotency-Key'], force: true, template: false });
  if (result.status !== 'success') throw new UnprocessableError(result.message);
  return { response_status: result.httpStatus };
}

function answerTest(result: ExecutionResult): { message: string } {
  if (result.status === 'success' && result.httpStatus >= 200 && result.httpStatus < 300) return { message: '201 Created' };
  throw new UnprocessableError(result.status === 'success' ? result.body : result.message);
}

/** POST …/hooks/:hook_id/test/:trigger: a sample of the event sent now, even to a disabled hook; 201, or 422 with the reason. */
export async function testHook(ctx: Ctx, parent: HookParent, hookId: number, trigger: HookTrigger): Promise<{ message: string }> {
  const hook = await findHook(ctx, parent, hookId);
  const sample = await testPayload(ctx, parent, trigger);
  if ('error' in sample) throw new UnprocessableError(sample.error);
  return answerTest(await executeHook(ctx, hook, sample.data, sample.trigger, { eventUuid: randomUUID(), force: true }));
}

/** The data GitLab's system hook test sends (API::SystemHooks). */
export const SYSTEM_HOOK_TEST_DATA = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
};

/** POST /hooks/:hook_id: sends the sample and answers it (201), whatever the target said. */
export async function testSystemHook(ctx: Ctx, hookId: number): Promise<typeof SYSTEM_HOOK_TEST_DATA> {
  const hook = await findHook(ctx, { kind: 'system' }, hookId);
  await executeHook(ctx, hook, { ...SYSTEM_HOOK_TEST_DATA }, 'system_hooks', { eventUuid: randomUUID(), force: true });
  return SYSTEM_HOOK_TEST_DATA;
}
