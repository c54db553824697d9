/**
 * NuGet package ids and versions: validation, NuGet's normalization (the identity of a
 * version) and a sort key whose byte order is SemVer 2 order, so SQL can order versions.
 */

/** GitLab's `nuget_package_name_regex`. */
export const PACKAGE_NAME_RE = /^[-+._a-zA-Z0-9]+$/;

const IDENT = '[0-9A-Za-z-]+';
/** 1 to 4 numeric parts, an optional SemVer prerelease and build metadata. */
export const VERSION_RE = new RegExp(`^(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?(?:\\.(\\d+))?(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+(${IDENT}(?:\\.${IDENT})*))?$`);

/** Numeric parts may not exceed int32 (NuGet's System.Version). */
const MAX_PART = 2_147_483_647;

export interface ParsedVersion {
  /** Numeric parts without leading zeros (1 to 4 of them). */
  parts: number[];
  prerelease: string | null;
  build: string | null;
}

export function parseVersion(text: string): ParsedVersion | null {
  const m = VERSION_RE.exec(text);
  if (!m) return null;
  const parts = [m[1], m[2], m[3], m[4]].filter((x): x is string => x !== undefined).map(Number);
  if (parts.some((n) => !Number.isSafeInteger(n) || n > MAX_PART)) return null;
  return { parts, prerelease: m[5] ?? null, build: m[6] ?? null };
}

export function isValidVersion(text: string): boolean {
  return parseVersion(text) !== null;
}

export function isValidPackageName(text: string): boolean {
  return text.length > 0 && text.length <= 255 && PACKAGE_NAME_RE.test(text);
}

/**
 * A version as NuGet writes it: numeric parts without leading zeros, padded to 3, a 4th part
 * `0` dropped, labels as spelled. Without `metadata` it is NuGet's normalized string
 * (`ToNormalizedString`: `01.2.0.0-Beta+b7` → `1.2.0-Beta`), with it the full string
 * (`ToFullString`: `1.2.0-Beta+b7`). Null when the text is not a version.
 */
export function formatVersion(text: string, options: { metadata: boolean }): string | null {
  const v = parseVersion(text);
  if (!v) return null;
  const parts = [...v.parts];
  while (parts.length < 3) parts.push(0);
  if (parts.length === 4 && parts[3] === 0) parts.pop();
  return `${parts.join('.')}${v.prerelease ? `-${v.prerelease}` : ''}${options.metadata && v.build ? `+${v.build}` : ''}`;
}

/**
 * NuGet's normalized version, lower-cased: the identity of a version, and what URLs, the flat
 * container and registration pages carry (`01.2` → `1.2.0`, `1.0.0.0` → `1.0.0`,
 * `1.0.0.1-Beta+x` → `1.0.0.1-beta`). Null when the text is not a version.
 */
export function normalizeVersion(text: string): string | null {
  return formatVersion(text, { metadata: false })?.toLowerCase() ?? null;
}

/** The full version (build metadata kept) of a stored version, or the text itself when it does not parse. */
export function fullVersion(text: string): string {
  return formatVersion(text, { metadata: true }) ?? text;
}

const NUM_WIDTH = 10;

/**
 * A key that sorts (byte-wise) in SemVer 2 order, NuGet style: numeric parts compared as
 * numbers (4 of them, missing ones 0), a release after all its prereleases, prerelease
 * identifiers compared one by one (numeric ones numerically and before alphanumeric ones,
 * labels case-insensitively, a shorter list first). Build metadata is ignored.
 */
export function versionSortKey(text: string): string {
  const v = parseVersion(text);
  if (!v) return '';
  const parts = [...v.parts];
  while (parts.length < 4) parts.push(0);
  const head = parts.map((n) => String(n).padStart(NUM_WIDTH, '0')).join('.');
  if (!v.prerelease) return `${head}~`;
  const ids = v.prerelease.split('.').map((id) => (/^\d+$/.test(id) ? `0${String(Number(id)).padStart(NUM_WIDTH, '0')}` : `1${id.toLowerCase()}`));
  // '!' sorts below every identifier character, so a list sorts before its extensions.
  return `${head}-${ids.join('!')}`;
}

export function compareVersions(a: string, b: string): number {
  const ka = versionSortKey(a);
  const kb = versionSortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export function isPrereleaseVersion(text: string): boolean {
  return parseVersion(text)?.prerelease != null;
}
