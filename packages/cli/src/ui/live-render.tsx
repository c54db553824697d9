/** The Ink rendering of live feedback, loaded only when a terminal shows it (see live.ts). */
import { renderToString, Text } from 'ink';
import { formatBytes, SPINNER, type ProgressUnit } from './live.js';

export function ProgressBar({ label, done, total, width = 30, unit = 'bytes' }: { label: string; done: number; total: number | null; width?: number; unit?: ProgressUnit }) {
  const format = unit === 'bytes' ? formatBytes : String;
  if (total === null || total <= 0) {
    return (
      <Text>
        {label} <Text color="cyan">{format(done)}</Text>
      </Text>
    );
  }
  const ratio = Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  return (
    <Text>
      {label} <Text color="cyan">{'█'.repeat(filled)}</Text>
      <Text dimColor>{'░'.repeat(width - filled)}</Text> {String(Math.floor(ratio * 100)).padStart(3)}% {format(done)}/{format(total)}
    </Text>
  );
}

export function renderProgress(label: string, done: number, total: number | null, columns = 120, unit: ProgressUnit = 'bytes'): string {
  return renderToString(<ProgressBar label={label} done={done} total={total} unit={unit} />, { columns });
}

export function renderSpinner(label: string, frame: number, columns = 120): string {
  return renderToString(
    <Text>
      <Text color="cyan">{SPINNER[frame % SPINNER.length]}</Text> {label}
    </Text>,
    { columns },
  );
}
