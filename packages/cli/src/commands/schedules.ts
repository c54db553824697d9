/** `forgelet schedules list|play`: pipeline schedules of a project on a running server. */
import type { Command } from 'commander';
import type { PipelineScheduleEntity } from '@forgelet/core';
import { UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface ListFlags extends Flags, PagingFlags {
  scope?: string;
}

const SCOPES = ['active', 'inactive'] as const;

export function registerScheduleCommands(program: Command, io: CliIo): void {
  const schedules = program.command('schedules').description('pipeline schedules of a project on a running server');
  pagingOptions(remoteOptions(schedules.command('list <project>')))
    .description("list a project's pipeline schedules (project id or full path)")
    .option('--scope <scope>', SCOPES.join(' or '))
    .action((project: string, flags: ListFlags) => list(project, flags, io));
  remoteOptions(schedules.command('play <project> <schedule_id>'))
    .description('run a schedule now, as you (its next run is unchanged)')
    .action((project: string, id: string, flags: Flags) => play(project, id, flags, io));
}

function scheduleId(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`schedule id must be a positive integer, got "${value}"`);
  return Number(value);
}

const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');

async function list(project: string, flags: ListFlags, io: CliIo): Promise<void> {
  if (flags.scope !== undefined && !(SCOPES as readonly string[]).includes(flags.scope)) {
    throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}, got "${flags.scope}"`);
  }
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading schedules', () =>
    call(remote, (api) =>
      fetchListing<PipelineScheduleEntity>(
        api.pipelineSchedules.all(project, { per_page: paging.perPage, ...(flags.scope !== undefined && { scope: flags.scope as (typeof SCOPES)[number] }) }),
        paging,
      ),
    ),
  );
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No pipeline schedules.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((s) => [
    String(s.id),
    s.active ? { text: 'active', color: 'green' } : { text: 'inactive', color: 'yellow' },
    shortRef(s.ref),
    `${s.cron} ${s.cron_timezone}`,
    s.next_run_at ?? '-',
    s.owner?.username ?? '-',
    s.last_error ? { text: s.last_error, color: 'red' } : s.description,
  ]);
  io.stdout.write(renderTable(['ID', 'STATE', 'REF', 'CRON', 'NEXT RUN', 'OWNER', 'DESCRIPTION'], rows, io.stdout.columns) + footer);
}

async function play(project: string, id: string, flags: Flags, io: CliIo): Promise<void> {
  const schedule = scheduleId(id);
  const remote = resolveRemote(flags, io.env);
  const answer = await call(remote, (api) => api.pipelineSchedules.run(project, schedule));
  if (flags.json) return writeJson(io.stdout, { id: schedule, ...answer });
  io.stdout.write(`Schedule ${schedule} queued to run now (${answer.message}).\n`);
}
