/** A plain text table: bold headers, columns as wide as their widest cell. */
import { Box, renderToString, Text } from 'ink';

export interface Cell {
  text: string;
  color?: string;
}

export function Table({ headers, rows }: { headers: string[]; rows: Cell[][] }) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.text.length ?? 0)));
  return (
    <Box flexDirection="column">
      <Box>
        {headers.map((h, i) => (
          <Box key={h} width={widths[i] + 2} flexShrink={0}>
            <Text bold>{h}</Text>
          </Box>
        ))}
      </Box>
      {rows.map((row, r) => (
        <Box key={r}>
          {row.map((cell, i) => (
            <Box key={i} width={widths[i] + 2} flexShrink={i === row.length - 1 ? 1 : 0}>
              <Text color={cell.color} wrap="truncate-end">
                {cell.text}
              </Text>
            </Box>
          ))}
        </Box>
      ))}
    </Box>
  );
}

/** A table as text, for commands' human output (`columns`: the terminal width). */
export function renderTable(headers: string[], rows: (string | Cell)[][], columns = 120): string {
  const cells = rows.map((row) => row.map((c) => (typeof c === 'string' ? { text: c } : c)));
  return `${renderToString(<Table headers={headers} rows={cells} />, { columns })}\n`;
}
