/** `?`: every key of the console. */
import { Box, Text } from 'ink';

const SECTIONS: [string, [string, string][]][] = [
  ['Everywhere', [['↑ ↓ PgUp PgDn Home End', 'move in a list (more rows load as you scroll)'], ['Tab / Shift+Tab', 'next / previous tab'], ['Enter', 'open'], ['u', 'refresh'], ['Esc / q', 'back; quit on the first screen'], ['?', 'this help'], ['Ctrl+C', 'quit']]],
  ['Projects, Groups', [['type', 'filter by name or path (Backspace erases, Esc clears)']]],
  ['Project', [['1 2 3, ← →', 'Schedules, Flows, Errors']]],
  ['Schedules', [['p', 'play the schedule now (as you)'], ['Enter', 'details: ref, cron, owner, last and recent pipelines']]],
  ['Flows', [['', 'agent flow workloads (CI pipelines with source duo_workflow) and their status']]],
  ['Errors', [['r', 'rotate the client key (new key, old keys deleted), or create the first one']]],
  ['Imports', [['c', 'cancel the migration (asks y/n)'], ['Enter', 'its entities with status and records']]],
];

export function Help() {
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Keys
      </Text>
      {SECTIONS.map(([title, keys]) => (
        <Box key={title} flexDirection="column">
          <Text bold>{title}</Text>
          {keys.map(([k, what]) => (
            <Text key={k + what}>
              {'  '}
              <Text color="yellow">{k.padEnd(24)}</Text>
              {what}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
}
