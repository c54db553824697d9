/** `forgelet imports watch`: one progress bar per entity and relation, from the entities' stats. */
import { Box, renderToString, Text } from 'ink';
import type { BulkImportEntity, BulkImportEntityEntity } from '@forgelet/core';

const STATUS_COLORS: Record<string, string> = { finished: 'green', failed: 'red', canceled: 'yellow', timeout: 'red', started: 'cyan', created: 'gray' };

export function bar(done: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, done / total) : done > 0 ? 1 : 0;
  const filled = Math.round(ratio * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

export function ImportProgress({ migration, entities }: { migration: BulkImportEntity; entities: BulkImportEntityEntity[] }) {
  const relWidth = Math.max(8, ...entities.flatMap((e) => Object.keys(e.stats).map((r) => r.length)));
  return (
    <Box flexDirection="column">
      <Text>
        Migration {migration.id} from {migration.source_url ?? ''}: <Text color={STATUS_COLORS[migration.status]}>{migration.status}</Text>
        {migration.has_failures ? <Text color="red"> (with failures)</Text> : null}
      </Text>
      {entities.map((e) => (
        <Box key={e.id} flexDirection="column" marginLeft={1}>
          <Text>
            {e.entity_type} {e.source_full_path} → {e.destination_full_path}: <Text color={STATUS_COLORS[e.status]}>{e.status}</Text>
          </Text>
          {Object.entries(e.stats).map(([relation, s]) => (
            <Text key={relation}>
              {'   '}
              {relation.padEnd(relWidth)} {bar(s.imported, s.source)} {s.imported}/{s.source} (fetched {s.fetched})
            </Text>
          ))}
          {e.failures.map((f, i) => (
            <Text key={i} color="red">
              {'   '}✗ {f.relation}: {f.exception_class}: {f.exception_message}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
}

export function renderImportProgress(migration: BulkImportEntity, entities: BulkImportEntityEntity[], columns = 120): string {
  return `${renderToString(<ImportProgress migration={migration} entities={entities} />, { columns })}\n`;
}
