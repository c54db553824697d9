/** Groups or projects, filtered on the server as you type; Enter picks one. */
import { useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeys } from './keys.js';
import type { GroupEntity, ProjectSimpleEntity } from '@forgelet/core';
import { useConsole } from './context.js';
import { useDebounced, usePaged } from './hooks.js';
import { ListView, useCursor, type Cell } from './list.js';
import { when } from './format.js';

export type PickerSource = { kind: 'projects' } | { kind: 'groups' } | { kind: 'group-projects'; group: GroupEntity };

/** Text typed into the filter: printable characters only (`?` opens the help). */
export function filterText(input: string): string {
  return [...input].filter((ch) => ch >= ' ' && ch !== '\x7f' && ch !== '?').join('');
}

export function Picker({ source, onPickProject, onPickGroup, onEscape }: {
  source: PickerSource;
  onPickProject(project: ProjectSimpleEntity): void;
  onPickGroup(group: GroupEntity): void;
  /** Esc with an empty filter. */
  onEscape(): void;
}) {
  const ctx = useConsole();
  const [filter, setFilter] = useState('');
  const search = useDebounced(filter.trim(), 250);
  const sourceKey = source.kind === 'group-projects' ? `group-projects:${source.group.id}` : source.kind;
  const list = usePaged<GroupEntity | ProjectSimpleEntity>(
    `${sourceKey}:${search}`,
    (page, perPage) => {
      const q = { page, per_page: perPage, ...(search ? { search } : {}) };
      if (source.kind === 'groups') return ctx.api.groups.all({ ...q, order_by: 'path' as const, sort: 'asc' as const }).page(page);
      if (source.kind === 'group-projects') return ctx.api.groups.projects(source.group.id, { ...q, simple: true, include_subgroups: true, order_by: 'path' as const, sort: 'asc' as const }).page(page);
      return ctx.api.projects.all({ ...q, simple: true, order_by: 'path' as const, sort: 'asc' as const }).page(page);
    },
    ctx.describe,
  );
  const cursor = useCursor(list);
  const selected = cursor.selected;
  const height = ctx.body.rows - 4;

  // The filter as typed so far, for keys that come before the next render.
  const typed = useRef(filter);
  const setTyped = (next: string) => {
    typed.current = next;
    setFilter(next);
    cursor.set(0);
  };
  useKeys((input, key) => {
    if (cursor.move(key, height)) return true;
    if (key.escape) {
      if (typed.current) setTyped('');
      else onEscape();
    } else if (key.return) {
      const item = list.items[cursor.current()];
      if (item && source.kind === 'groups') onPickGroup(item as GroupEntity);
      else if (item) onPickProject(item as ProjectSimpleEntity);
    } else if (key.backspace || key.delete) setTyped(typed.current.slice(0, -1));
    else if (key.ctrl || key.meta || key.tab || !filterText(input)) return false;
    else setTyped(typed.current + filterText(input));
  });

  const isGroups = source.kind === 'groups';
  const rows: Cell[][] = list.items.map((item) =>
    isGroups
      ? [{ text: String(item.id) }, { text: (item as GroupEntity).full_path }, { text: (item as GroupEntity).visibility, color: 'gray' }, { text: item.name }]
      : [{ text: String(item.id) }, { text: (item as ProjectSimpleEntity).path_with_namespace }, { text: when((item as ProjectSimpleEntity).last_activity_at) }, { text: item.description ?? '' }],
  );
  const columns = isGroups
    ? [{ title: 'ID', width: 6 }, { title: 'GROUP', width: 40 }, { title: 'VISIBILITY', width: 10 }, { title: 'NAME' }]
    : [{ title: 'ID', width: 6 }, { title: 'PROJECT', width: 44 }, { title: 'LAST ACTIVITY', width: 16 }, { title: 'DESCRIPTION' }];
  const what = isGroups ? 'groups' : 'projects';
  return (
    <Box flexDirection="column">
      <Text>
        <Text color="cyan">Filter: </Text>
        {filter}
        <Text inverse> </Text>
        <Text dimColor>{filter ? '  (Esc clears)' : `  type to filter ${what}`}</Text>
      </Text>
      <ListView columns={columns} rows={rows} selected={selected} height={height} width={ctx.body.columns} empty={search ? `No ${what} match "${search}".` : `No ${what}.`} list={list} />
    </Box>
  );
}
