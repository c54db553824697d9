/**
 * Which reaction names are valid. GitLab checks names against its emoji index (TanukiEmoji
 * alpha codes) after mapping aliases (`fixtures/emojis/aliases.json`); we check against the
 * names of GitHub's gemoji dataset, which covers the names clients send (thumbsup, tada …).
 */
let names: Promise<ReadonlySet<string>> | null = null;

/** The dataset is loaded on first use, not when the server starts. */
function emojiNames(): Promise<ReadonlySet<string>> {
  names ??= import('gemoji').then(({ gemoji }) => new Set(gemoji.flatMap((e) => e.names)));
  return names;
}

/**
 * GitLab stores up- and downvotes as `thumbsup`/`thumbsdown` (AwardEmoji::UPVOTE_NAME) and
 * maps `+1`/`-1` to them (aliases.json) before validating; gemoji lists `+1` first.
 */
const ALIASES: Readonly<Record<string, string>> = { '+1': 'thumbsup', '-1': 'thumbsdown' };

/** The name GitLab would store for `name` (aliases resolved). */
export function normalizeEmojiName(name: string): string {
  return ALIASES[name] ?? name;
}

export async function isValidEmojiName(name: string): Promise<boolean> {
  return (await emojiNames()).has(name);
}

/** The emoji of a reaction name (gemoji's character and description), null for an unknown name. */
export async function emojiOf(name: string): Promise<{ emoji: string; description: string } | null> {
  const { gemoji } = await import('gemoji');
  const found = gemoji.find((e) => e.names.includes(normalizeEmojiName(name)));
  return found ? { emoji: found.emoji, description: found.description } : null;
}
