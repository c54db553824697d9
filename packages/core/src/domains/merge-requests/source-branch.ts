/**
 * Commits of source branches. The repository does not exist yet: until it does, the first
 * merge request from a branch records a first commit on it, and later merge requests from
 * the same branch share that head. The repository issue replaces these two functions.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../accounts/project.table.js';
import { selectSourceBranchHead } from './merge-request.queries.js';

/** A fresh 40-hex commit id. */
export function newCommitSha(): string {
  return randomBytes(20).toString('hex');
}

/** The head commit of `branch` in the project, recording a first commit when it has none. */
export async function sourceBranchHead(trx: Kysely<Database>, project: ProjectRow, branch: string): Promise<string> {
  return (await selectSourceBranchHead(trx, project.id, branch)) ?? newCommitSha();
}
