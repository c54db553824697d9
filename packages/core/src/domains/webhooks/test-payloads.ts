/**
 * Samples for hook tests (GitLab's TestHooks::ProjectService): the event built from the
 * project's (or, for a group hook, its projects') first matching item, or GitLab's message
 * asking for one. Events Forgelet does not send yet answer "Testing not available for this hook".
 */
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { HookParent } from './hooks.js';
import { buildIssuePayload, buildMergeRequestPayload, buildNotePayload, noteIsConfidential } from './payloads.js';
import type { HookTrigger } from './webhook.schema.js';
import { requireUser } from '../../access/policy.js';
import { nowIso } from '../../access/context.js';
import { buildEmojiPayload } from './payloads-emoji.js';
import type { Noteable, NoteableType } from '../notes/index.js';
import { detailedMergeStatusesOf, type MergeRequestRow } from '../merge-requests/index.js';

const statusReader = (ctx: Ctx) => async (mr: MergeRequestRow) => (await detailedMergeStatusesOf(ctx, [mr])).get(mr.id);
import { ciTestPayload } from './test-payloads-ci.js';
import { refsTestPayload } from './test-payloads-push.js';

type Sample = { data: Record<string, unknown>; trigger: string } | { error: string };

/** The projects whose items a test may use: the hook's project, or the projects under a group hook's group. */
async function projectsOf(ctx: Ctx, parent: HookParent): Promise<ProjectRow[]> {
  if (parent.kind === 'project') return [parent.project];
  if (parent.kind !== 'group') return [];
  return ctx.db
    .selectFrom('projects as p')
    .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
    .selectAll('p')
    .where('n.traversal', 'like', `${parent.group.traversal}%`)
    .orderBy('p.id')
    .execute();
}

export async function testPayload(ctx: Ctx, parent: HookParent, trigger: HookTrigger): Promise<Sample> {
  const user = requireUser(ctx);
  const projects = await projectsOf(ctx, parent);
  const ids = projects.length ? projects.map((p) => p.id) : [0];
  const projectOf = (id: number) => projects.find((p) => p.id === id)!;
  switch (trigger) {
    case 'issues_events':
    case 'confidential_issues_events': {
      const issue = await ctx.db.selectFrom('issues').selectAll().where('project_id', 'in', ids).orderBy('id').executeTakeFirst();
      if (!issue) return { error: 'Ensure the project has issues.' };
      const project = projectOf(issue.project_id);
      const data = await buildIssuePayload(ctx.db, ctx.urls, { by: user, project, before: null, after: issue, action: 'open' });
      return { data, trigger: trigger === 'issues_events' ? 'issue_hooks' : 'confidential_issue_hooks' };
    }
    case 'merge_requests_events': {
      const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('project_id', 'in', ids).orderBy('id').executeTakeFirst();
      if (!mr) return { error: 'Ensure the project has merge requests.' };
      const detailedMergeStatus = (await detailedMergeStatusesOf(ctx, [mr])).get(mr.id);
      const data = await buildMergeRequestPayload(ctx.db, ctx.urls, { by: user, project: projectOf(mr.project_id), before: null, after: mr, action: 'open', detailedMergeStatus });
      return { data, trigger: 'merge_request_hooks' };
    }
    case 'note_events':
    case 'confidential_note_events': {
      const note = await ctx.db.selectFrom('notes').selectAll().where('project_id', 'in', ids).where('system', '=', 0).orderBy('id').executeTakeFirst();
      if (!note) return { error: 'Ensure the project has notes.' };
      const project = projectOf(note.project_id);
      const iid = await iidOf(ctx, note.noteable_type, note.noteable_id);
      const noteable: Noteable = { type: note.noteable_type as NoteableType, id: note.noteable_id, project, authorId: note.author_id, iid, discussionLocked: false };
      const confidential = await noteIsConfidential(ctx.db, note);
      const data = await buildNotePayload(ctx.db, ctx.urls, { by: user, note, noteable, action: 'create', confidential, statusOf: statusReader(ctx) });
      return { data, trigger: trigger === 'note_events' ? 'note_hooks' : 'confidential_note_hooks' };
    }
    case 'emoji_events': {
      // GitLab's emoji_events_data: an unsaved thumbsup by the caller on the project's last note.
      const note = await ctx.db.selectFrom('notes').selectAll().where('project_id', 'in', ids).orderBy('id', 'desc').executeTakeFirst();
      if (!note) return { error: 'Ensure the project has notes.' };
      const now = nowIso(ctx);
      const award = { id: 1, name: 'thumbsup', user_id: user.id, awardable_type: 'Note', awardable_id: note.id, created_at: now, updated_at: now };
      const data = await buildEmojiPayload(ctx.db, ctx.urls, { by: user, project: projectOf(note.project_id), award, action: 'award', statusOf: statusReader(ctx) });
      return { data, trigger: 'emoji_hooks' };
    }
    case 'pipeline_events':
    case 'job_events':
    case 'deployment_events':
      return ciTestPayload(ctx, projects, trigger);
    case 'push_events':
    case 'tag_push_events':
    case 'releases_events':
    case 'milestone_events':
      return refsTestPayload(ctx, projects, trigger);
    default:
      return { error: 'Testing not available for this hook' };
  }
}

async function iidOf(ctx: Ctx, type: string, id: number): Promise<number | null> {
  if (type === 'Issue') return (await ctx.db.selectFrom('issues').select('iid').where('id', '=', id).executeTakeFirst())?.iid ?? null;
  if (type === 'MergeRequest') return (await ctx.db.selectFrom('merge_requests').select('iid').where('id', '=', id).executeTakeFirst())?.iid ?? null;
  return null;
}
