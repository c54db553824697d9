/** Data-directory helpers for the CLI; the layout itself belongs to `@forgelet/server`. */
import { isPostgresUrl } from './options.js';

export {
  dataDirLayout, ensureDataDir, keyFileSource, readKeyFile, secretKeySource, writeKeyFile, type DataDirLayout,
} from '@forgelet/server';

/** A database URL or path safe to print: the password is masked. */
export function describeDatabase(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
