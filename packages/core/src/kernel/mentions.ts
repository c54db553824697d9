/**
 * `@username` references in Markdown text, as GitLab's user reference filter finds them
 * (User.reference_pattern): `@` not preceded by a word character, then the username, matched
 * case-insensitively. Mentioned users are participants of an issue or merge request.
 */

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` mentions `@username`. */
export function mentions(text: string | null | undefined, username: string): boolean {
  if (!text || !text.includes('@')) return false;
  return new RegExp(`(?<![\\w])@${escape(username)}(?![\\w.-]*[\\w-])`, 'i').test(text);
}
