/**
 * The validations of GitLab's `Releases::Link` model, as Rails full messages. `label` names the
 * attribute: `Url` for the links API, `Links url` when the links are nested in a new release.
 */
import { LINK_TYPES } from './release.schema.js';

/** `Releases::Link::FILEPATH_REGEX` (a leading `/`, no `//`, ends with a letter or digit). */
const FILEPATH_REGEX = /^\/[^/](?!.*\/\/.*)[-.\w/]+[\da-zA-Z]+$/;
export const FILEPATH_MAX_LENGTH = 128;
const URL_SCHEMES = ['http', 'https', 'ftp'];
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

export interface LinkFields {
  name: string;
  url: string;
  filepath: string | null;
  link_type: string;
}

/** Links of the same release the uniqueness checks compare against. */
export interface LinkSiblings {
  names: ReadonlySet<string>;
  urls: ReadonlySet<string>;
  filepaths: ReadonlySet<string>;
}

export const NO_SIBLINGS: LinkSiblings = { names: new Set(), urls: new Set(), filepaths: new Set() };

/**
 * AddressableUrlValidator with `schemes: http https ftp` (Gitlab::UrlBlocker without DNS): the
 * problem as the text after the attribute name, or null when the URL is acceptable.
 */
export function urlProblem(url: string): string | null {
  if (url.trim() === '') return 'must be a valid URL';
  let unescaped = url;
  try {
    unescaped = decodeURIComponent(url);
  } catch {
    // keep the raw text
  }
  if (/[\n\r]/.test(unescaped)) return 'is blocked: URI is invalid';
  const scheme = SCHEME.exec(url)?.[1];
  if (!scheme || !URL_SCHEMES.includes(scheme)) return `is blocked: Only allowed schemes are ${URL_SCHEMES.join(', ')}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is blocked: URI is invalid';
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host && !/^[\p{L}\p{N}]/u.test(host) && !host.includes(':')) return 'is blocked: Hostname or IP address invalid';
  return null;
}

/** The messages of one link, in the model's validation order (url, name, filepath). */
export function linkErrors(fields: LinkFields, label: (attribute: 'Url' | 'Name' | 'Filepath' | 'Link type') => string, siblings: LinkSiblings = NO_SIBLINGS): string[] {
  const errors: string[] = [];
  const url = fields.url.trim();
  if (url === '') errors.push(`${label('Url')} can't be blank`);
  const problem = urlProblem(url);
  if (problem) errors.push(`${label('Url')} ${problem}`);
  if (siblings.urls.has(url)) errors.push(`${label('Url')} has already been taken`);
  if (fields.name.trim() === '') errors.push(`${label('Name')} can't be blank`);
  if (siblings.names.has(fields.name)) errors.push(`${label('Name')} has already been taken`);
  if (fields.filepath !== null) {
    if (fields.filepath !== '' && siblings.filepaths.has(fields.filepath)) errors.push(`${label('Filepath')} has already been taken`);
    if (fields.filepath.length > FILEPATH_MAX_LENGTH) errors.push(`${label('Filepath')} is too long (maximum is ${FILEPATH_MAX_LENGTH} characters)`);
    else if (!FILEPATH_REGEX.test(fields.filepath)) errors.push(`${label('Filepath')} is in an invalid format`);
  }
  return errors;
}

/** Rails' enum assignment refuses an unknown `link_type` with an ArgumentError (answered as 400). */
export function invalidLinkType(linkType: string): string | null {
  return (LINK_TYPES as readonly string[]).includes(linkType) ? null : `'${linkType}' is not a valid link_type`;
}

/** `direct_asset_path` wins over the deprecated `filepath`; null when neither is given. */
export function filepathOf(input: { direct_asset_path?: string; filepath?: string }): string | null | undefined {
  if (input.direct_asset_path !== undefined) return input.direct_asset_path;
  if (input.filepath !== undefined) return input.filepath;
  return undefined;
}
