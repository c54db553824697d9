/**
 * The webhooks' reactions to other domains' changes, registered by the wiring (forge.ts): each
 * runs in the transaction of the change and queues the event for the hooks that take it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { selectIssueAssigneeIds, type IssueChange, type IssueHooks } from '../issues/index.js';
import { selectTargetLabelIds } from '../labels/index.js';
import { detailedMergeStatusesOf, type MergeRequestHooks } from '../merge-requests/index.js';
import type { NoteHooks } from '../notes/index.js';
import { anyWebhook, emitWebhookEvent } from './emit.js';
import { buildIssuePayload, buildMergeRequestPayload, buildNotePayload, noteIsConfidential, type MergeStatusOf } from './payloads.js';
import type { Ctx } from '../../access/context.js';

/** `detailed_merge_status` as the merge requests compute it, read through the change's transaction (its context's deps are the prototype). */
export function mergeStatusReader(trx: Kysely<Database>, by: Ctx): MergeStatusOf {
  const ctx = Object.assign(Object.create(by) as Ctx, { db: trx });
  return async (mr) => (await detailedMergeStatusesOf(ctx, [mr])).get(mr.id);
}

const sameIds = (a: number[], b: number[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** Whether an update changed the issue's labels or assignees (nothing else changed its row). */
async function relationsChanged(trx: Kysely<Database>, issueId: number, previous: IssueChange['previous']): Promise<boolean> {
  if (!previous) return false;
  return !sameIds(previous.labelIds, await selectTargetLabelIds(trx, 'Issue', issueId)) || !sameIds(previous.assigneeIds, await selectIssueAssigneeIds(trx, issueId));
}

/** Issue events: open, update (with `changes`), close, reopen; confidential issues go to confidential issue hooks only. */
export const webhookIssueHooks: IssueHooks = {
  issueChanged: async (trx, before, after, change) => {
    const by = change.by.actor.user;
    if (!after || !by) return; // GitLab sends no issue event for a deletion
    if (!(await anyWebhook(trx))) return;
    const action = !before ? 'open' : before.state !== after.state ? (after.state === 'closed' ? 'close' : 'reopen') : 'update';
    if (before && action === 'update' && JSON.stringify(before) === JSON.stringify(after) && !(await relationsChanged(trx, after.id, change.previous))) return;
    const project = await trx.selectFrom('projects').selectAll().where('id', '=', after.project_id).executeTakeFirstOrThrow();
    const confidential = after.confidential === 1;
    await emitWebhookEvent(trx, change.by, {
      project,
      flag: confidential ? 'confidential_issues_events' : 'issues_events',
      trigger: confidential ? 'confidential_issue_hooks' : 'issue_hooks',
      build: () => buildIssuePayload(trx, change.by.urls, { by, project, before, after, action, previous: change.previous }),
    });
  },
  quietOnCreate: async (db) => !(await anyWebhook(db)),
};

/** Merge request events: open, update, close, reopen, merge, approved/approval, unapproved/unapproval (system hooks too). */
export const webhookMergeRequestHooks: MergeRequestHooks = {
  mergeRequestChanged: async (trx, change) => {
    const by = change.by.actor.user;
    if (!by || !(await anyWebhook(trx))) return;
    const project = await trx.selectFrom('projects').selectAll().where('id', '=', change.after.project_id).executeTakeFirstOrThrow();
    await emitWebhookEvent(trx, change.by, {
      project,
      system: 'flag',
      flag: 'merge_requests_events',
      trigger: 'merge_request_hooks',
      build: async () => {
        const detailedMergeStatus = await mergeStatusReader(trx, change.by)(change.after);
        return buildMergeRequestPayload(trx, change.by.urls, { by, project, before: change.before, after: change.after, action: change.action, previous: change.previous, detailedMergeStatus });
      },
    });
  },
};

/** Comment events on issues, merge requests and snippets; internal ones (or on confidential issues) go to confidential note hooks. */
export const webhookNoteHooks: NoteHooks = {
  noteChanged: async (trx, change) => {
    const by = change.by.actor.user;
    if (!by || !(await anyWebhook(trx))) return;
    const confidential = await noteIsConfidential(trx, change.note);
    await emitWebhookEvent(trx, change.by, {
      project: change.noteable.project,
      flag: confidential ? 'confidential_note_events' : 'note_events',
      trigger: confidential ? 'confidential_note_hooks' : 'note_hooks',
      build: () => buildNotePayload(trx, change.by.urls, { by, note: change.note, noteable: change.noteable, action: change.action, confidential, statusOf: mergeStatusReader(trx, change.by) }),
    });
  },
};
