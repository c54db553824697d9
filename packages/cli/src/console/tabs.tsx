import { Text } from 'ink';

export function TabBar<T extends string>({ title, tabs, current }: { title?: string; tabs: readonly T[]; current: T }) {
  return (
    <Text wrap="truncate-end">
      {title ? (
        <Text bold color="cyan">
          {title}{'  '}
        </Text>
      ) : null}
      {tabs.map((t, i) => (
        <Text key={t}>
          {t === current ? (
            <Text inverse bold>
              {` ${i + 1} ${t} `}
            </Text>
          ) : (
            <Text dimColor>{` ${i + 1} ${t} `}</Text>
          )}{' '}
        </Text>
      ))}
    </Text>
  );
}
