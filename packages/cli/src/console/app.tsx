/**
 * The interactive console (`forgelet` in a terminal): a header with the instance and the user,
 * then Projects / Groups / Imports; a project opens its Schedules, Flows and Errors. One view
 * takes the keys at a time; `?` shows the keys of every view.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Box, Text, useApp, useInput, type Key } from 'ink';
import type { Forgelet } from '@forgelet/client';
import type { GroupEntity, UserDetailEntity } from '@forgelet/core';
import { Console, type ConsoleContext, type Status } from './context.js';
import { errorText } from './format.js';
import { useTerminalSize } from './hooks.js';
import { Picker } from './picker.js';
import { ImportsTab } from './imports.js';
import { ProjectScreen, switchTab, type ProjectRef } from './project.js';
import { TabBar } from './tabs.js';
import { Help } from './help.js';
import { createKeyRegistry, dispatchKey, KeyLayer, KeyRoot } from './keys.js';

const HOME_TABS = ['Projects', 'Groups', 'Imports'] as const;
type HomeTab = (typeof HOME_TABS)[number];

type Screen = { kind: 'home' } | { kind: 'group'; group: GroupEntity } | { kind: 'project'; project: ProjectRef };

export function App({ api, url }: { api: Forgelet; url: string }) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [user, setUser] = useState<{ user: UserDetailEntity } | { error: string } | null>(null);
  const [status, setStatus] = useState<Status | null>(null);
  const [hints, setHints] = useState('');
  const [stack, setStack] = useState<Screen[]>([{ kind: 'home' }]);
  const [homeTab, setHomeTab] = useState<HomeTab>('Projects');
  const [help, setHelp] = useState(false);
  const registry = useRef(createKeyRegistry()).current;

  const ctx = useMemo<ConsoleContext>(
    () => ({
      api,
      url,
      setStatus,
      setHints,
      describe: (err) => errorText(err, url),
      // header, tab line, status line, hints line, and one spare so Ink never scrolls
      body: { rows: Math.max(5, size.rows - 5), columns: Math.max(40, size.columns - 1) },
    }),
    [api, url, size.rows, size.columns],
  );

  useEffect(() => {
    api.users.current().then(
      (u) => setUser({ user: u }),
      (err: unknown) => setUser({ error: errorText(err, url) }),
    );
  }, [api, url]);

  const screen = stack[stack.length - 1]!;
  const push = (s: Screen) => {
    setStatus(null);
    setStack((st) => [...st, s]);
  };
  const back = () => {
    setStatus(null);
    if (live.current.stack.length === 1) exit();
    else setStack((st) => st.slice(0, -1));
  };

  const homeActive = !help && screen.kind === 'home';
  // Ink re-subscribes the input handler after each render: the handler reads this instead of its closure.
  const live = useRef({ help, screen, homeTab, stack });
  live.current = { help, screen, homeTab, stack };
  // The only keyboard reader: help first, then the views (deepest first), then the start screen's own keys.
  const handleKey = (input: string, key: Key) => {
    const now = live.current;
    if (now.help) {
      if (input === '?' || input === 'q' || key.escape) setHelp(false);
      return;
    }
    if (input === '?') return setHelp(true);
    if (dispatchKey(registry, input, key) || now.screen.kind !== 'home') return;
    const next = switchTab(HOME_TABS, now.homeTab, input, key);
    if (next) {
      setStatus(null);
      setHomeTab(next);
    } else if (input === 'q' || key.escape) exit();
  };
  // Keys typed faster than a frame (or pasted) reach Ink in one read, as one string ("ry"):
  // each is handled on its own, the next one once the screen the previous one led to has
  // rendered (a timer runs after React's commit), so "r" opens the question and "y" answers it.
  const queued = useRef<[string, Key][]>([]);
  const drain = () => {
    const next = queued.current.shift();
    if (!next) return;
    handleKey(...next);
    if (queued.current.length) setTimeout(drain, 0);
  };
  useInput((input, key) => {
    const typed = input.length > 1 && !key.ctrl && !key.meta && [...input].every((c) => c >= ' ') ? [...input] : [input];
    const idle = queued.current.length === 0;
    queued.current.push(...typed.map((c): [string, Key] => [c, key]));
    if (idle) drain();
  });

  // The pickers' hints (the other views set their own).
  const pickerHints =
    homeActive && homeTab !== 'Imports'
      ? 'type to filter · ↑↓ move · Enter open · Tab switch · ? help · Esc quit'
      : !help && screen.kind === 'group'
        ? 'type to filter · ↑↓ move · Enter open · Esc back · ? help'
        : null;
  useEffect(() => {
    if (pickerHints) setHints(pickerHints);
  }, [pickerHints]);

  const who = user === null ? '…' : 'error' in user ? '' : `${user.user.username}${user.user.is_admin ? ' (admin)' : ''}`;
  return (
    <KeyRoot registry={registry}>
      <Console.Provider value={ctx}>
        <Box flexDirection="column" width={size.columns} height={size.rows - 1}>
          <Text wrap="truncate-end">
            <Text bold color="magenta">
              Forgelet
            </Text>
            {'  '}
            {url}
            {'  '}
            {user && 'error' in user ? <Text color="red">✗ {user.error}</Text> : <Text color="green">{who}</Text>}
          </Text>
          {help ? <Help /> : null}
          {/* Hidden, not unmounted, under the help: filters, tabs and cursors stay as they were. */}
          <Box display={help ? 'none' : 'flex'} flexDirection="column">
            <KeyLayer>
              {screen.kind === 'project' ? (
                <ProjectScreen key={`p${screen.project.id}`} project={screen.project} onBack={back} />
              ) : screen.kind === 'group' ? (
                <Box flexDirection="column">
                  <TabBar title={`Group ${screen.group.full_path}`} tabs={['Projects'] as const} current="Projects" />
                  <Picker key={`g${screen.group.id}`} source={{ kind: 'group-projects', group: screen.group }} onPickProject={(p) => push({ kind: 'project', project: p })} onPickGroup={() => {}} onEscape={back} />
                </Box>
              ) : (
                <Box flexDirection="column">
                  <TabBar tabs={HOME_TABS} current={homeTab} />
                  {homeTab === 'Projects' ? (
                    <Picker key="projects" source={{ kind: 'projects' }} onPickProject={(p) => push({ kind: 'project', project: p })} onPickGroup={() => {}} onEscape={back} />
                  ) : homeTab === 'Groups' ? (
                    <Picker key="groups" source={{ kind: 'groups' }} onPickProject={() => {}} onPickGroup={(g) => push({ kind: 'group', group: g })} onEscape={back} />
                  ) : (
                    <ImportsTab />
                  )}
                </Box>
              )}
            </KeyLayer>
          </Box>
          <Box flexGrow={1} />
          <Text wrap="truncate-end" color={status?.tone === 'error' ? 'red' : status?.tone === 'ok' ? 'green' : 'cyan'}>
            {status ? `${status.tone === 'error' ? '✗' : status.tone === 'ok' ? '✓' : '…'} ${status.text}` : ' '}
          </Text>
          <Text dimColor wrap="truncate-end">
            {help ? '? / Esc / q close the help' : hints}
          </Text>
        </Box>
      </Console.Provider>
    </KeyRoot>
  );
}
