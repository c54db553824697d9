/**
 * A project's agent flows, as the CI workloads that run them (pipelines with source
 * `duo_workflow`): the REST API reads one flow by id but has no list of flows.
 */
import { useKeys } from './keys.js';
import type { PipelineListEntity } from '@forgelet/core';
import { useConsole, useHints } from './context.js';
import { usePaged } from './hooks.js';
import { ListView, useCursor, type Cell } from './list.js';
import { statusColor, when } from './format.js';
import type { ProjectRef } from './project.js';

export function FlowsTab({ project }: { project: ProjectRef }) {
  const ctx = useConsole();
  const list = usePaged<PipelineListEntity>(
    `flows:${project.id}`,
    (page, perPage) => ctx.api.pipelines.all(project.id, { source: 'duo_workflow', page, per_page: perPage }).page(page),
    ctx.describe,
  );
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const height = ctx.body.rows - 3;
  useHints('↑↓ move · u refresh · Tab next tab · Esc back · ? help');
  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    if (input === 'u') list.reload();
    else return false;
  });
  const rows: Cell[][] = list.items.map((p) => [
    { text: String(p.id) },
    { text: p.status, color: statusColor(p.status) },
    { text: p.ref },
    { text: p.sha.slice(0, 8) },
    { text: when(p.created_at) },
    { text: when(p.updated_at) },
    { text: p.web_url },
  ]);
  return (
    <ListView
      columns={[{ title: 'PIPELINE', width: 9 }, { title: 'STATUS', width: 10 }, { title: 'REF', width: 20 }, { title: 'SHA', width: 8 }, { title: 'CREATED', width: 16 }, { title: 'UPDATED', width: 16 }, { title: 'URL' }]}
      rows={rows}
      selected={selected}
      height={height}
      width={ctx.body.columns}
      empty="No agent flows have run in this project."
      list={list}
    />
  );
}
