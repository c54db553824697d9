/** Entries of an archive's tree in GitLab's JSON shape (`Entities::Ci::JobArtifactEntry`). */
import type { CiArtifactEntryRow } from '../ci/index.js';

export interface ArtifactTreeEntryEntity {
  name: string;
  /** Relative to the archive root; directories end in `/`. */
  path: string;
  type: 'file' | 'directory';
  /** Bytes, files only. */
  size?: number;
  /** Octal, six digits: `100644`, `100755`, `040755`. */
  mode: string;
}

export function presentTreeEntry(row: Pick<CiArtifactEntryRow, 'name' | 'path' | 'type' | 'size' | 'mode'>): ArtifactTreeEntryEntity {
  const mode = row.mode.padStart(6, '0');
  return row.type === 'file'
    ? { name: row.name, path: row.path, type: row.type, size: Number(row.size ?? 0), mode }
    : { name: row.name, path: row.path, type: row.type, mode };
}
