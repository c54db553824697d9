/** Rules shared by group and project paths. */
import { BadRequestError } from '../../kernel/errors.js';
import { isUniqueViolation } from '../../storage/dialect.js';

export const PATH_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;

/** 400 with GitLab's model error unless `path` is valid (groups may not end in a dot either). */
export function checkPath(path: string, kind: 'group' | 'project'): void {
  if (!PATH_RE.test(path) || /\.(git|atom)$/.test(path) || (kind === 'group' && path.endsWith('.'))) {
    throw new BadRequestError({ path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] }, { raw: true });
  }
}

/** Runs a write; a unique violation (a full path taken) becomes 400 `path has already been taken`. */
export async function rethrowPathTaken<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError({ path: ['has already been taken'] }, { raw: true });
    throw err;
  }
}
