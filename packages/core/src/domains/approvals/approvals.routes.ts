import { accepted, created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { approveMergeRequest, getApprovals, getApprovalState, resetApprovals, unapproveMergeRequest } from './approve.js';
import {
  ApproveInput,
  CreateMergeRequestRuleInput,
  CreateProjectRuleInput,
  ListMergeRequestRulesInput,
  ListRulesInput,
  MergeRequestRefInput,
  MergeRequestRuleRefInput,
  ProjectRefInput,
  ProjectRuleRefInput,
  UpdateApprovalSettingsInput,
  UpdateMergeRequestRuleInput,
  UpdateProjectRuleInput,
} from './approvals.schema.js';
import { createMergeRequestRule, deleteMergeRequestRule, getMergeRequestRule, listMergeRequestRules, updateMergeRequestRule } from './merge-request-rules.js';
import { createProjectRule, deleteProjectRule, getProjectRule, listProjectRules, updateProjectRule } from './project-rules.js';
import { getApprovalSettings, updateApprovalSettings } from './settings.js';

const tag = 'merge_request_approvals';

/** Every approvals endpoint requires authentication (spec: Authentication). */
export const approvalsRoutes: Route[] = [
  route('GET', '/projects/:id/approvals', { auth: 'required', params: ProjectRefInput, tag, summary: 'Project approval configuration' },
    async (ctx, input) => ok(await getApprovalSettings(ctx, input))),
  route('POST', '/projects/:id/approvals', { auth: 'required', params: UpdateApprovalSettingsInput, tag, summary: 'Change the project approval configuration (Maintainer)' },
    async (ctx, input) => created(await updateApprovalSettings(ctx, input))),

  route('GET', '/projects/:id/approval_rules', { auth: 'required', params: ListRulesInput, tag, summary: 'List project approval rules' },
    async (ctx, input) => paged(await listProjectRules(ctx, input))),
  route('POST', '/projects/:id/approval_rules', { auth: 'required', params: CreateProjectRuleInput, tag, summary: 'Create a project approval rule (Maintainer)' },
    async (ctx, input) => created(await createProjectRule(ctx, input))),
  route('GET', '/projects/:id/approval_rules/:approval_rule_id', { auth: 'required', params: ProjectRuleRefInput, tag, summary: 'Get a project approval rule' },
    async (ctx, input) => ok(await getProjectRule(ctx, input))),
  route('PUT', '/projects/:id/approval_rules/:approval_rule_id', { auth: 'required', params: UpdateProjectRuleInput, tag, summary: 'Update a project approval rule (Maintainer)' },
    async (ctx, input) => ok(await updateProjectRule(ctx, input))),
  route('DELETE', '/projects/:id/approval_rules/:approval_rule_id', { auth: 'required', params: ProjectRuleRefInput, tag, summary: 'Delete a project approval rule (Maintainer)' },
    async (ctx, input) => {
      await deleteProjectRule(ctx, input);
      return noContent();
    }),

  route('GET', '/projects/:id/merge_requests/:merge_request_iid/approvals', { auth: 'required', params: MergeRequestRefInput, tag, summary: 'Approval state of a merge request' },
    async (ctx, input) => ok(await getApprovals(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/approval_state', { auth: 'required', params: MergeRequestRefInput, tag, summary: 'Approval rules of a merge request with who approved them' },
    async (ctx, input) => ok(await getApprovalState(ctx, input))),
  route('POST', '/projects/:id/merge_requests/:merge_request_iid/approve', { auth: 'required', params: ApproveInput, tag, summary: 'Approve a merge request' },
    async (ctx, input) => created(await approveMergeRequest(ctx, input))),
  route('POST', '/projects/:id/merge_requests/:merge_request_iid/unapprove', { auth: 'required', params: MergeRequestRefInput, tag, summary: "Remove the caller's approval" },
    async (ctx, input) => created(await unapproveMergeRequest(ctx, input))),
  route('PUT', '/projects/:id/merge_requests/:merge_request_iid/reset_approvals', { auth: 'required', params: MergeRequestRefInput, tag, summary: 'Reset all approvals (project or group access token bots)' },
    async (ctx, input) => {
      await resetApprovals(ctx, input);
      return accepted();
    }),

  route('GET', '/projects/:id/merge_requests/:merge_request_iid/approval_rules', { auth: 'required', params: ListMergeRequestRulesInput, tag, summary: 'List merge request approval rules' },
    async (ctx, input) => paged(await listMergeRequestRules(ctx, input))),
  route('POST', '/projects/:id/merge_requests/:merge_request_iid/approval_rules', { auth: 'required', params: CreateMergeRequestRuleInput, tag, summary: 'Create a merge request approval rule' },
    async (ctx, input) => created(await createMergeRequestRule(ctx, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id', { auth: 'required', params: MergeRequestRuleRefInput, tag, summary: 'Get a merge request approval rule' },
    async (ctx, input) => ok(await getMergeRequestRule(ctx, input))),
  route('PUT', '/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id', { auth: 'required', params: UpdateMergeRequestRuleInput, tag, summary: 'Update a merge request approval rule' },
    async (ctx, input) => ok(await updateMergeRequestRule(ctx, input))),
  route('DELETE', '/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id', { auth: 'required', params: MergeRequestRuleRefInput, tag, summary: 'Delete a merge request approval rule' },
    async (ctx, input) => {
      await deleteMergeRequestRule(ctx, input);
      return noContent();
    }),
];
