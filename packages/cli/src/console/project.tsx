/** One project: Schedules, Flows and Errors tabs. */
import { useState } from 'react';
import { Box } from 'ink';
import { KeyLayer, useKeys } from './keys.js';
import { SchedulesTab } from './schedules.js';
import { FlowsTab } from './flows.js';
import { ErrorsTab } from './errors.js';
import { TabBar } from './tabs.js';

export interface ProjectRef {
  id: number;
  path_with_namespace: string;
}

const TABS = ['Schedules', 'Flows', 'Errors'] as const;
type Tab = (typeof TABS)[number];

/** The tab after (or before) `current` for Tab / Shift+Tab / → / ←, or the one numbered 1–9. */
export function switchTab<T extends string>(
  tabs: readonly T[],
  current: T,
  input: string,
  key: { tab: boolean; shift: boolean; leftArrow: boolean; rightArrow: boolean },
  /** Arrows and digits too (not while typing into a filter). */
  all = true,
): T | null {
  const i = tabs.indexOf(current);
  if ((key.tab && key.shift) || (all && key.leftArrow)) return tabs[(i + tabs.length - 1) % tabs.length]!;
  if (key.tab || (all && key.rightArrow)) return tabs[(i + 1) % tabs.length]!;
  if (all && /^[1-9]$/.test(input) && Number(input) <= tabs.length) return tabs[Number(input) - 1]!;
  return null;
}

export function ProjectScreen({ project, onBack }: { project: ProjectRef; onBack(): void }) {
  const [tab, setTab] = useState<Tab>('Schedules');
  // The tabs take their keys first; what they leave switches tabs or goes back.
  useKeys((input, key) => {
    const next = switchTab(TABS, tab, input, key);
    if (next) setTab(next);
    else if (key.escape || input === 'q') onBack();
    else return false;
  });
  return (
    <Box flexDirection="column">
      <TabBar title={project.path_with_namespace} tabs={TABS} current={tab} />
      <KeyLayer>
        {tab === 'Schedules' ? <SchedulesTab project={project} /> : null}
        {tab === 'Flows' ? <FlowsTab project={project} /> : null}
        {tab === 'Errors' ? <ErrorsTab project={project} /> : null}
      </KeyLayer>
    </Box>
  );
}
