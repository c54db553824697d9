/** `forgelet token list` for people (personal or, with `--impersonation`, impersonation tokens). */
import { renderToString, Text } from 'ink';
import type { PersonalAccessTokenEntity } from '@forgelet/core';
import { Table, type Cell } from './table.js';

function stateOf(token: PersonalAccessTokenEntity): Cell {
  if (token.revoked) return { text: 'revoked', color: 'red' };
  if (!token.active) return { text: 'expired', color: 'yellow' };
  return { text: 'active', color: 'green' };
}

interface Props {
  tokens: PersonalAccessTokenEntity[];
  usernames: ReadonlyMap<number, string>;
  /** What the tokens are, for the line shown when there are none. */
  kind?: string;
}

export function TokenTable({ tokens, usernames, kind = 'personal access tokens' }: Props) {
  if (tokens.length === 0) return <Text>No {kind}.</Text>;
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

export function renderTokenTable(tokens: PersonalAccessTokenEntity[], usernames: ReadonlyMap<number, string>, columns = 120, kind?: string): string {
  return `${renderToString(<TokenTable tokens={tokens} usernames={usernames} kind={kind} />, { columns })}\n`;
}
