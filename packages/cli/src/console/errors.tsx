/** A project's error tracking: grouped errors, the client key, r rotates the key. */
import { useEffect, useState } from 'react';
import { Box, Text } from 'ink';
import { KeyLayer, useKeys } from './keys.js';
import type { ClientKeyEntity, ErrorTrackingErrorEntity } from '@forgelet/core';
import { act, useConsole, useHints } from './context.js';
import { usePaged } from './hooks.js';
import { ListView, useCursor, type Cell } from './list.js';
import { Confirm, type Question } from './confirm.js';
import { statusColor, when } from './format.js';
import type { ProjectRef } from './project.js';

export function ErrorsTab({ project }: { project: ProjectRef }) {
  const ctx = useConsole();
  const list = usePaged<ErrorTrackingErrorEntity>(`errors:${project.id}`, (page, perPage) => ctx.api.errorTrackingErrors.all(project.id, { page, per_page: perPage }).page(page), ctx.describe);
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const [keys, setKeys] = useState<{ first: ClientKeyEntity | null; total: number | null } | { error: string } | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  const height = ctx.body.rows - 6;
  useHints(question ? 'y confirm · n/Esc keep the key' : '↑↓ move · r rotate client key · u refresh · Tab next tab · Esc back · ? help');

  const loadKeys = () => {
    ctx.api.errorTrackingClientKeys.all(project.id, { per_page: 1 }).page(1).then(
      (page) => setKeys({ first: page.items[0] ?? null, total: page.pagination.total }),
      (err: unknown) => setKeys({ error: ctx.describe(err) }),
    );
  };
  useEffect(loadKeys, [project.id]);

  const rotate = () =>
    void act(
      ctx,
      'Rotating the client key…',
      async () => {
        // The old keys (a handful) are read before the new one exists, then deleted after it does.
        const old = await ctx.api.errorTrackingClientKeys.all(project.id, { per_page: 100 }).toArray();
        const fresh = await ctx.api.errorTrackingClientKeys.create(project.id);
        for (const key of old) await ctx.api.errorTrackingClientKeys.remove(project.id, key.id);
        return { fresh, removed: old.length };
      },
      ({ fresh, removed }) => `New client key #${fresh.id} (${fresh.public_key})${removed ? `; ${removed} old key${removed === 1 ? '' : 's'} deleted` : ''}. DSN: ${fresh.sentry_dsn}`,
    ).then(loadKeys);

  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    if (input === 'u') {
      list.reload();
      loadKeys();
    } else if (input === 'r') {
      const has = keys && 'first' in keys && keys.first;
      setQuestion({
        prompt: has ? `Rotate the client key of ${project.path_with_namespace}? SDKs using the old DSN are refused from now on.` : `Create a client key for ${project.path_with_namespace}?`,
        onYes: rotate,
      });
    } else return false;
  }, question === null);

  const rows: Cell[][] = list.items.map((e) => [
    { text: String(e.id) },
    { text: e.status, color: statusColor(e.status) },
    { text: String(e.count) },
    { text: String(e.user_count) },
    { text: when(e.last_seen) },
    { text: e.title },
  ]);
  const current = list.items[selected];
  return (
    <Box flexDirection="column">
      {keys === null ? (
        <Text dimColor>Client key: loading…</Text>
      ) : 'error' in keys ? (
        <Text color="red">✗ Client keys: {keys.error}</Text>
      ) : keys.first ? (
        <Text>
          Client key: <Text color="green">{keys.first.public_key}</Text>
          {keys.total !== null && keys.total > 1 ? ` (+${keys.total - 1} more)` : ''} <Text dimColor>DSN {keys.first.sentry_dsn}</Text>
        </Text>
      ) : (
        <Text>
          Client key: <Text color="yellow">none</Text> <Text dimColor>(r creates one)</Text>
        </Text>
      )}
      {question ? (
        <KeyLayer>
          <Confirm question={question} onClose={() => setQuestion(null)} />
        </KeyLayer>
      ) : (
        <Text> </Text>
      )}
      <ListView
        columns={[{ title: 'ID', width: 5 }, { title: 'STATUS', width: 10 }, { title: 'EVENTS', width: 6 }, { title: 'USERS', width: 5 }, { title: 'LAST SEEN', width: 16 }, { title: 'ERROR' }]}
        rows={rows}
        selected={selected}
        height={height}
        width={ctx.body.columns}
        empty="No errors reported to this project."
        list={list}
      />
      <Text dimColor wrap="truncate-end">
        {current ? `${current.culprit ?? ''}${current.culprit && current.message ? ' — ' : ''}${current.message ?? ''}` : ' '}
      </Text>
    </Box>
  );
}
