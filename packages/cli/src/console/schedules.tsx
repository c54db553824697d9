/** A project's pipeline schedules: p plays one now, Enter shows its details and last pipeline. */
import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { KeyLayer, useKeys } from './keys.js';
import type { PipelineScheduleDetailsEntity, PipelineScheduleEntity, SchedulePipelineEntity } from '@forgelet/core';
import { act, useConsole, useHints, type ConsoleContext } from './context.js';
import { usePaged, useInterval } from './hooks.js';
import { ListView, useCursor, type Cell } from './list.js';
import { statusColor, when } from './format.js';
import type { ProjectRef } from './project.js';

const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');

function play(ctx: ConsoleContext, project: ProjectRef, schedule: PipelineScheduleEntity): Promise<unknown> {
  return act(
    ctx,
    `Playing schedule #${schedule.id}…`,
    () => ctx.api.pipelineSchedules.run(project.id, schedule.id),
    (r) => `Schedule #${schedule.id} "${schedule.description}" played: ${r.message}`,
  );
}

export function SchedulesTab({ project }: { project: ProjectRef }) {
  const ctx = useConsole();
  const list = usePaged<PipelineScheduleEntity>(`schedules:${project.id}`, (page, perPage) => ctx.api.pipelineSchedules.all(project.id, { page, per_page: perPage }).page(page), ctx.describe);
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const [details, setDetails] = useState<PipelineScheduleEntity | null>(null);
  const height = ctx.body.rows - 3;

  useHints('↑↓ move · p play now · Enter details · u refresh · Tab next tab · Esc back · ? help', details === null);
  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    const schedule = list.items[cursor.current()];
    if (input === 'u') list.reload();
    else if (schedule && input === 'p') void play(ctx, project, schedule);
    else if (schedule && key.return) setDetails(schedule);
    else return false;
  }, details === null);

  if (details)
    return (
      <KeyLayer>
        <ScheduleDetails project={project} schedule={details} onClose={() => setDetails(null)} />
      </KeyLayer>
    );
  const rows: Cell[][] = list.items.map((s) => [
    { text: String(s.id) },
    { text: s.description },
    { text: shortRef(s.ref) },
    { text: `${s.cron} ${s.cron_timezone}` },
    { text: when(s.next_run_at) },
    s.active ? { text: 'active', color: 'green' } : { text: 'inactive', color: 'yellow' },
    { text: s.owner?.username ?? '' },
    { text: s.last_error ?? '', color: 'red' },
  ]);
  return (
    <ListView
      columns={[{ title: 'ID', width: 5 }, { title: 'DESCRIPTION', width: 24 }, { title: 'REF', width: 14 }, { title: 'CRON', width: 20 }, { title: 'NEXT RUN', width: 16 }, { title: 'STATE', width: 8 }, { title: 'OWNER', width: 12 }, { title: 'LAST ERROR' }]}
      rows={rows}
      selected={selected}
      height={height}
      width={ctx.body.columns}
      empty="No pipeline schedules in this project."
      list={list}
    />
  );
}

function pipelineLine(p: SchedulePipelineEntity) {
  return (
    <Text>
      #{p.id} <Text color={statusColor(p.status)}>{p.status}</Text> on {p.ref} ({p.sha.slice(0, 8)}) {when(p.created_at)} <Text dimColor>{p.web_url}</Text>
    </Text>
  );
}

/** One schedule, re-read every two seconds so a played pipeline shows up. */
function ScheduleDetails({ project, schedule, onClose }: { project: ProjectRef; schedule: PipelineScheduleEntity; onClose(): void }) {
  const ctx = useConsole();
  const [data, setData] = useState<{ schedule: PipelineScheduleDetailsEntity; recent: SchedulePipelineEntity[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    Promise.all([
      ctx.api.pipelineSchedules.show(project.id, schedule.id),
      ctx.api.pipelineSchedules.allTriggeredPipelines(project.id, schedule.id, { sort: 'desc', per_page: 5 }).page(1),
    ]).then(
      ([s, recent]) => {
        setData({ schedule: s, recent: recent.items });
        setError(null);
      },
      (err: unknown) => setError(ctx.describe(err)),
    );
  };
  useEffect(load, [schedule.id]);
  useInterval(load, 2000);
  useHints('p play now · u refresh · Esc back · ? help');
  useKeys((input, key) => {
    if (key.escape || input === 'q') onClose();
    else if (input === 'p') void play(ctx, project, schedule).then(load);
    else if (input === 'u') load();
    else return false;
  });
  const s = data?.schedule;
  const field = (name: string, value: ReactNode) => (
    <Text>
      <Text bold>{name.padEnd(14)}</Text>
      {value}
    </Text>
  );
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Schedule #{schedule.id}: {s?.description ?? schedule.description}
      </Text>
      {error ? <Text color="red">✗ {error}</Text> : null}
      {!s ? (
        <Text dimColor>loading…</Text>
      ) : (
        <>
          {field('Ref', shortRef(s.ref))}
          {field('Cron', `${s.cron} (${s.cron_timezone})`)}
          {field('Next run', when(s.next_run_at) || 'never')}
          {field('State', s.active ? 'active' : 'inactive')}
          {field('Owner', s.owner ? `${s.owner.username} (${s.owner.name})` : 'none')}
          {field('Variables', s.variables ? (s.variables.map((v) => v.key).join(', ') || 'none') : 'hidden')}
          {s.last_error ? field('Last error', <Text color="red">{s.last_error}</Text>) : null}
          {field('Last pipeline', s.last_pipeline ? pipelineLine(s.last_pipeline) : 'none yet')}
          <Text bold>Recent pipelines</Text>
          {data.recent.length === 0 ? <Text dimColor>  none</Text> : data.recent.map((p) => <Text key={p.id}>  {pipelineLine(p)}</Text>)}
        </>
      )}
    </Box>
  );
}
