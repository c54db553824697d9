/** The caller's migrations (bulk imports): c cancels one after a y/n, Enter lists its entities. */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { KeyLayer, useKeys } from './keys.js';
import type { BulkImportEntity, BulkImportEntityEntity } from '@forgelet/core';
import { act, useConsole, useHints } from './context.js';
import { usePaged } from './hooks.js';
import { ListView, useCursor, type Cell } from './list.js';
import { Confirm, type Question } from './confirm.js';
import { statusColor, when } from './format.js';

const ENDED = ['finished', 'failed', 'canceled', 'timeout'];

export function ImportsTab() {
  const ctx = useConsole();
  const list = usePaged<BulkImportEntity>('imports', (page, perPage) => ctx.api.bulkImports.all({ sort: 'desc', page, per_page: perPage }).page(page), ctx.describe);
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const [question, setQuestion] = useState<Question | null>(null);
  const [open, setOpen] = useState<BulkImportEntity | null>(null);
  const height = ctx.body.rows - 4;
  useHints(question ? 'y confirm · n/Esc keep it' : '↑↓ move · Enter entities · c cancel · u refresh · Tab switch · ? help · q quit', open === null);

  const cancel = (migration: BulkImportEntity) =>
    void act(
      ctx,
      `Canceling migration ${migration.id}…`,
      () => ctx.api.bulkImports.cancel(migration.id),
      (m) => `Migration ${m.id} is ${m.status}.`,
    ).then((m) => {
      if (m) list.replace((i) => i.id === m.id, { ...migration, ...m });
    });

  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    const migration = list.items[cursor.current()];
    if (input === 'u') list.reload();
    else if (migration && key.return) setOpen(migration);
    else if (migration && input === 'c') {
      if (ENDED.includes(migration.status)) ctx.setStatus({ tone: 'error', text: `Migration ${migration.id} is already ${migration.status}.` });
      else setQuestion({ prompt: `Cancel migration ${migration.id} from ${migration.source_url ?? 'the source'}?`, onYes: () => cancel(migration) });
    } else return false;
  }, question === null && open === null);

  if (open)
    return (
      <KeyLayer>
        <ImportEntities migration={open} onClose={() => setOpen(null)} />
      </KeyLayer>
    );
  const rows: Cell[][] = list.items.map((m) => [
    { text: String(m.id) },
    { text: m.status, color: statusColor(m.status) },
    m.has_failures ? { text: 'yes', color: 'red' } : { text: 'no' },
    { text: when(m.created_at) },
    { text: when(m.updated_at) },
    { text: m.source_url ?? '' },
  ]);
  return (
    <Box flexDirection="column">
      {question ? (
        <KeyLayer>
          <Confirm question={question} onClose={() => setQuestion(null)} />
        </KeyLayer>
      ) : (
        <Text dimColor>Migrations by direct transfer, newest first.</Text>
      )}
      <ListView
        columns={[{ title: 'ID', width: 6 }, { title: 'STATUS', width: 10 }, { title: 'FAILURES', width: 8 }, { title: 'CREATED', width: 16 }, { title: 'UPDATED', width: 16 }, { title: 'SOURCE' }]}
        rows={rows}
        selected={selected}
        height={height}
        width={ctx.body.columns}
        empty="No migrations."
        list={list}
      />
    </Box>
  );
}

function ImportEntities({ migration, onClose }: { migration: BulkImportEntity; onClose(): void }) {
  const ctx = useConsole();
  const list = usePaged<BulkImportEntityEntity>(`import:${migration.id}`, (page, perPage) => ctx.api.bulkImports.allEntities({ bulkImportId: migration.id, sort: 'asc', page, per_page: perPage }).page(page), ctx.describe);
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const height = ctx.body.rows - 4;
  useHints('↑↓ move · u refresh · Esc back · ? help');
  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    if (key.escape || input === 'q') onClose();
    else if (input === 'u') list.reload();
    else return false;
  });
  const rows: Cell[][] = list.items.map((e) => {
    const stats = Object.values(e.stats ?? {});
    const done = stats.reduce((n, s) => n + s.imported, 0);
    const total = stats.reduce((n, s) => n + s.source, 0);
    return [
      { text: String(e.id) },
      { text: e.entity_type },
      { text: e.status, color: statusColor(e.status) },
      { text: `${done}/${total}` },
      { text: String(e.failures?.length ?? 0), color: e.failures?.length ? 'red' : undefined },
      { text: `${e.source_full_path} → ${e.destination_full_path}` },
    ];
  });
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Migration {migration.id} from {migration.source_url ?? ''} <Text dimColor>(Esc back)</Text>
      </Text>
      <ListView
        columns={[{ title: 'ID', width: 6 }, { title: 'TYPE', width: 8 }, { title: 'STATUS', width: 10 }, { title: 'RECORDS', width: 9 }, { title: 'FAILURES', width: 8 }, { title: 'PATH' }]}
        rows={rows}
        selected={selected}
        height={height}
        width={ctx.body.columns}
        empty="No entities."
        list={list}
      />
    </Box>
  );
}
