/** `forgelet token list` for people. */
import { renderToString, Text } from 'ink';
import type { PersonalAccessTokenEntity } from '@forgelet/core';
import { Table, type Cell } from './table.js';

function stateOf(token: PersonalAccessTokenEntity): Cell {
  if (token.revoked) return { text: 'revoked', color: 'red' };
  if (!token.active) return { text: 'expired', color: 'yellow' };
  return { text: 'active', color: 'green' };
}

export function TokenTable({ tokens, usernames }: { tokens: PersonalAccessTokenEntity[]; usernames: ReadonlyMap<number, string> }) {
  if (tokens.length === 0) return <Text>No personal access tokens.</Text>;
  const rows = tokens.map((t): Cell[] => [
    { text: String(t.id) },
    { text: t.name },
    { text: usernames.get(t.user_id) ?? `#${t.user_id}` },
    stateOf(t),
    { text: t.expires_at ?? 'never' },
    { text: t.last_used_at?.slice(0, 16).replace('T', ' ') ?? 'never' },
    { text: t.scopes.join(',') },
  ]);
  return <Table headers={['ID', 'NAME', 'USER', 'STATE', 'EXPIRES', 'LAST USED', 'SCOPES']} rows={rows} />;
}

export function renderTokenTable(tokens: PersonalAccessTokenEntity[], usernames: ReadonlyMap<number, string>, columns = 120): string {
  return `${renderToString(<TokenTable tokens={tokens} usernames={usernames} />, { columns })}\n`;
}
