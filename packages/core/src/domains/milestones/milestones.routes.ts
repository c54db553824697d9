import type { Ctx } from '../../access/context.js';
import type { Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import type { MilestoneParentKind } from './find-milestone.js';
import { listGroupMilestones, listProjectMilestones } from './list-milestones.js';
import {
  CreateMilestoneInput,
  ListGroupMilestonesInput,
  ListProjectMilestonesInput,
  MilestoneRefInput,
  UpdateMilestoneInput,
} from './milestone.schema.js';
import { createMilestone, deleteMilestone, getMilestone, updateMilestone } from './write-milestones.js';

const tag = 'milestones';

/** `DELETE …/milestones/:milestone_id`, the same under groups and projects. */
const removeMilestone = (kind: MilestoneParentKind) => async (ctx: Ctx, input: Infer<typeof MilestoneRefInput>) => {
  await deleteMilestone(ctx, kind, input);
  return noContent();
};

// Groups and projects share the milestone routes as GitLab's MilestoneResponses concern does. A
// milestone's issues, burndown events and merge requests are served by the issues and
// merge-requests domains.
export const milestonesRoutes: Route[] = [
  route('GET', '/groups/:id/milestones', { auth: 'optional', params: ListGroupMilestonesInput, tag, summary: 'List group milestones' },
    async (ctx, input) => paged(await listGroupMilestones(ctx, input))),
  route('POST', '/groups/:id/milestones', { auth: 'required', params: CreateMilestoneInput, tag, summary: 'Create a group milestone' },
    async (ctx, input) => created(await createMilestone(ctx, 'groups', input))),
  route('GET', '/groups/:id/milestones/:milestone_id', { auth: 'optional', params: MilestoneRefInput, tag, summary: 'Get a group milestone' },
    async (ctx, input) => ok(await getMilestone(ctx, 'groups', input))),
  route('PUT', '/groups/:id/milestones/:milestone_id', { auth: 'required', params: UpdateMilestoneInput, tag, summary: 'Update, close or activate a group milestone' },
    async (ctx, input) => ok(await updateMilestone(ctx, 'groups', input))),
  route('DELETE', '/groups/:id/milestones/:milestone_id', { auth: 'required', params: MilestoneRefInput, tag, summary: 'Delete a group milestone (Developer and up)' },
    removeMilestone('groups')),

  route('GET', '/projects/:id/milestones', { auth: 'optional', params: ListProjectMilestonesInput, tag, summary: 'List project milestones' },
    async (ctx, input) => paged(await listProjectMilestones(ctx, input))),
  route('POST', '/projects/:id/milestones', { auth: 'required', params: CreateMilestoneInput, tag, summary: 'Create a project milestone' },
    async (ctx, input) => created(await createMilestone(ctx, 'projects', input))),
  route('GET', '/projects/:id/milestones/:milestone_id', { auth: 'optional', params: MilestoneRefInput, tag, summary: 'Get a project milestone' },
    async (ctx, input) => ok(await getMilestone(ctx, 'projects', input))),
  route('PUT', '/projects/:id/milestones/:milestone_id', { auth: 'required', params: UpdateMilestoneInput, tag, summary: 'Update, close or activate a project milestone' },
    async (ctx, input) => ok(await updateMilestone(ctx, 'projects', input))),
  route('DELETE', '/projects/:id/milestones/:milestone_id', { auth: 'required', params: MilestoneRefInput, tag, summary: 'Delete a project milestone (Developer and up)' },
    removeMilestone('projects')),
];
