/**
 * `forgelet hooks list|add|remove|test|events`: project hooks (the default), group hooks
 * (`--group`) or system hooks (`--system`, no target) on a running server.
 */
import type { Command } from 'commander';
import type { Forgelet } from '@forgelet/client';
import type { HookEntity, HookLogEntity, HookTrigger } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { splitList } from '../options.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';

interface Flags extends RemoteFlags {
  json?: boolean;
  group?: boolean;
  system?: boolean;
}
interface AddFlags extends Flags {
  events?: string;
  secretToken?: string;
  name?: string;
}

/** `--events` words → the hook's switches (GitLab's names without `_events`). */
const EVENTS = [
  'push', 'tag_push', 'issues', 'confidential_issues', 'merge_requests', 'note', 'confidential_note', 'job', 'pipeline',
  'wiki_page', 'deployment', 'releases', 'milestone', 'emoji', 'member', 'subgroup', 'repository_update',
] as const;

function scopeOptions(cmd: Command): Command {
  return remoteOptions(cmd).option('--group', 'the target is a group (group hooks, Premium)').option('--system', 'system hooks (administrators; no target)');
}

export function registerHookCommands(program: Command, io: CliIo): void {
  const hooks = program.command('hooks').description('webhooks of a project, a group or the instance on a running server');
  pagingOptions(scopeOptions(hooks.command('list [target]')))
    .description('list the hooks of a project (id or full path), a group (--group) or the instance (--system)')
    .action((target: string | undefined, flags: Flags & PagingFlags) => list(target, flags, io));
  scopeOptions(hooks.command('add <target> [url]'))
    .description('add a hook; --events issues,note,merge_requests,… (default: push)')
    .option('--events <list>', `comma-separated: ${EVENTS.join(', ')}`)
    .option('--secret-token <token>', 'secret sent in X-Gitlab-Token')
    .option('--name <name>', 'name of the hook')
    .action((target: string | undefined, url: string | undefined, flags: AddFlags) => add(target, url, flags, io));
  scopeOptions(hooks.command('remove <target> [hook_id]'))
    .description('delete a hook')
    .action((target: string | undefined, id: string | undefined, flags: Flags) => remove(target, id, flags, io));
  scopeOptions(hooks.command('test <target> [hook_id] [trigger]'))
    .description('send a sample event now (trigger e.g. issues_events; system hooks take none)')
    .action((target: string | undefined, id: string | undefined, trigger: string | undefined, flags: Flags) => test(target, id, trigger, flags, io));
  pagingOptions(remoteOptions(hooks.command('events <target> <hook_id>')).option('--group', 'the target is a group'), 20)
    .description('recent deliveries of a project or group hook, newest first')
    .action((target: string, id: string, flags: Flags & PagingFlags) => events(target, id, flags, io));
}

/** `<target> [x]`: with --system there is no target, and the first argument is `x`. */
function positional(target: string | undefined, rest: string | undefined, flags: Flags): { target: string | null; rest: string | undefined } {
  if (flags.system && flags.group) throw new UsageError('--group and --system are mutually exclusive');
  if (flags.system) return { target: null, rest: target };
  if (target === undefined || rest === undefined) throw new UsageError('a project (or, with --group, a group) is required');
  return { target, rest };
}

function hookId(value: string | undefined): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`hook id must be a positive integer, got "${value}"`);
  return Number(value);
}

function resource(api: Forgelet, flags: Flags) {
  return flags.group ? api.groupHooks : api.projectHooks;
}

function eventsOf(hook: HookEntity): string {
  return EVENTS.filter((e) => (hook as unknown as Record<string, unknown>)[`${e}_events`] === true).join(',');
}

async function list(target: string | undefined, flags: Flags & PagingFlags, io: CliIo): Promise<void> {
  if (!flags.system && target === undefined) throw new UsageError('a project (or, with --group, a group) is required');
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await call(remote, (api) =>
    fetchListing<HookEntity>(flags.system ? api.systemHooks.all({ per_page: paging.perPage }) : resource(api, flags).all(target!, { per_page: paging.perPage }), paging),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No hooks.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((h) => [
    String(h.id),
    h.url,
    eventsOf(h),
    h.alert_status === 'executable' ? { text: 'executable', color: 'green' } : { text: `${h.alert_status}${h.disabled_until ? ` until ${h.disabled_until}` : ''}`, color: 'red' },
  ]);
  io.stdout.write(renderTable(['ID', 'URL', 'EVENTS', 'STATUS'], rows, io.stdout.columns) + footer);
}

async function add(target: string | undefined, url: string | undefined, flags: AddFlags, io: CliIo): Promise<void> {
  const args = positional(target, url, flags);
  const words = splitList(flags.events ?? 'push');
  const unknown = words.filter((w) => !(EVENTS as readonly string[]).includes(w));
  if (unknown.length) throw new UsageError(`unknown event "${unknown[0]}" (one of ${EVENTS.join(', ')})`);
  const body: Record<string, unknown> = { url: args.rest, push_events: words.includes('push') };
  for (const w of words) body[`${w}_events`] = true;
  if (flags.secretToken !== undefined) body.token = flags.secretToken;
  if (flags.name !== undefined) body.name = flags.name;
  const remote = resolveRemote(flags, io.env);
  const hook = await call(remote, (api) =>
    args.target === null ? api.systemHooks.add(body as never) : resource(api, flags).add(args.target, body as never),
  );
  if (flags.json) return writeJson(io.stdout, hook);
  io.stdout.write(`Hook ${hook.id} added: ${hook.url} (${eventsOf(hook as HookEntity) || 'no events'}).\n`);
}

async function remove(target: string | undefined, id: string | undefined, flags: Flags, io: CliIo): Promise<void> {
  const args = positional(target, id, flags);
  const hook = hookId(args.rest);
  const remote = resolveRemote(flags, io.env);
  await call(remote, (api) => (args.target === null ? api.systemHooks.remove(hook) : resource(api, flags).remove(args.target, hook)));
  if (flags.json) return writeJson(io.stdout, { id: hook, deleted: true });
  io.stdout.write(`Hook ${hook} deleted.\n`);
}

async function test(target: string | undefined, id: string | undefined, trigger: string | undefined, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  if (flags.system) {
    const hook = hookId(target);
    const sent = await call(remote, (api) => api.systemHooks.test(hook));
    if (flags.json) return writeJson(io.stdout, sent);
    return void io.stdout.write(`Sent a ${String(sent.event_name)} sample to hook ${hook}.\n`);
  }
  if (target === undefined || id === undefined) throw new UsageError('a project (or, with --group, a group) is required');
  const hook = hookId(id);
  const event = (trigger ?? 'push_events') as HookTrigger;
  const answer = await call(remote, (api) => resource(api, flags).test(target, hook, event));
  if (flags.json) return writeJson(io.stdout, answer);
  io.stdout.write(`Sent a ${event} sample to hook ${hook} (${answer.message}).\n`);
}

async function events(target: string, id: string, flags: Flags & PagingFlags, io: CliIo): Promise<void> {
  const hook = hookId(id);
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await call(remote, (api) => fetchListing<HookLogEntity>(resource(api, flags).events(target, hook, { per_page: Math.min(paging.perPage, 20) }), paging));
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No recent deliveries.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((e) => [
    String(e.id),
    e.created_at,
    e.trigger,
    /^2\d\d$/.test(e.response_status) ? { text: e.response_status, color: 'green' } : { text: e.response_status, color: 'red' },
    `${e.execution_duration.toFixed(2)} s`,
  ]);
  io.stdout.write(renderTable(['ID', 'AT', 'TRIGGER', 'STATUS', 'DURATION'], rows, io.stdout.columns) + footer);
}
