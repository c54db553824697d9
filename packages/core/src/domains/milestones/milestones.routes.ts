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

/**
 * The routes under one prefix; groups and projects share them as GitLab's MilestoneResponses
 * concern does. A milestone's issues, burndown events and merge requests are served by the
 * issues and merge-requests domains.
 */
function milestoneRoutes(kind: MilestoneParentKind): Route[] {
  const base = `/${kind}/:id/milestones`;
  const owner = kind === 'groups' ? 'group' : 'project';
  return [
    route('POST', base, { auth: 'required', params: CreateMilestoneInput, tag, summary: `Create a ${owner} milestone` },
      async (ctx, input) => created(await createMilestone(ctx, kind, input))),
    route('GET', `${base}/:milestone_id`, { auth: 'optional', params: MilestoneRefInput, tag, summary: `Get a ${owner} milestone` },
      async (ctx, input) => ok(await getMilestone(ctx, kind, input))),
    route('PUT', `${base}/:milestone_id`, { auth: 'required', params: UpdateMilestoneInput, tag, summary: `Update, close or activate a ${owner} milestone` },
      async (ctx, input) => ok(await updateMilestone(ctx, kind, input))),
    route('DELETE', `${base}/:milestone_id`, { auth: 'required', params: MilestoneRefInput, tag, summary: `Delete a ${owner} milestone (Developer and up)` },
      async (ctx, input) => {
        await deleteMilestone(ctx, kind, input);
        return noContent();
      }),
  ];
}

export const milestonesRoutes: Route[] = [
  route('GET', '/groups/:id/milestones', { auth: 'optional', params: ListGroupMilestonesInput, tag, summary: 'List group milestones' },
    async (ctx, input) => paged(await listGroupMilestones(ctx, input))),
  ...milestoneRoutes('groups'),
  route('GET', '/projects/:id/milestones', { auth: 'optional', params: ListProjectMilestonesInput, tag, summary: 'List project milestones' },
    async (ctx, input) => paged(await listProjectMilestones(ctx, input))),
  ...milestoneRoutes('projects'),
];
