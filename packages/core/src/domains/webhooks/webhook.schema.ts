/** Parameters of the project, group and system hook endpoints (GitLab's API::ProjectHooks, GroupHooks, SystemHooks, API::Hooks::*). */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const BRANCH_FILTER_STRATEGIES = ['wildcard', 'regex', 'all_branches'] as const;

const keyValue = p.object({ key: p.string().describe('Name'), value: p.string().describe('Value') });

const common = {
  name: p.string().optional().describe('Name of the hook.'),
  description: p.string().optional().describe('Description of the hook.'),
  token: p.string().optional().describe('Secret token sent in X-Gitlab-Token; never returned.'),
  push_events: p.boolean().optional().describe('Trigger on push events.'),
  tag_push_events: p.boolean().optional().describe('Trigger on tag push events.'),
  merge_requests_events: p.boolean().optional().describe('Trigger on merge request events.'),
  enable_ssl_verification: p.boolean().optional().describe('Verify the certificate of an https target.'),
  push_events_branch_filter: p.string().optional().describe('Respond to push events only on branches that match this filter.'),
  branch_filter_strategy: p.enum(BRANCH_FILTER_STRATEGIES).optional().describe('`wildcard` (default), `regex` or `all_branches`.'),
  custom_webhook_template: p.string().optional().describe('Custom template for the request payload (`{{path.to.field}}`).'),
  url_variables: p.array(keyValue).optional().describe('URL variables for `{key}` placeholders in the URL; values never returned.'),
  custom_headers: p.array(keyValue).optional().describe('Headers sent with every delivery; values never returned.'),
};

const projectEvents = {
  issues_events: p.boolean().optional().describe('Trigger on issue events.'),
  confidential_issues_events: p.boolean().optional().describe('Trigger on confidential issue events.'),
  note_events: p.boolean().optional().describe('Trigger on comment events.'),
  confidential_note_events: p.boolean().optional().describe('Trigger on internal comment events.'),
  job_events: p.boolean().optional().describe('Trigger on job events.'),
  pipeline_events: p.boolean().optional().describe('Trigger on pipeline events.'),
  wiki_page_events: p.boolean().optional().describe('Trigger on wiki page events.'),
  deployment_events: p.boolean().optional().describe('Trigger on deployment events.'),
  feature_flag_events: p.boolean().optional().describe('Trigger on feature flag events.'),
  releases_events: p.boolean().optional().describe('Trigger on release events.'),
  milestone_events: p.boolean().optional().describe('Trigger on milestone events.'),
  emoji_events: p.boolean().optional().describe('Trigger on emoji events.'),
  resource_access_token_events: p.boolean().optional().describe('Trigger on access token expiry events.'),
  resource_deploy_token_events: p.boolean().optional().describe('Trigger on deploy token expiry events.'),
  vulnerability_events: p.boolean().optional().describe('Trigger on vulnerability events.'),
};

const groupEvents = {
  ...projectEvents,
  subgroup_events: p.boolean().optional().describe('Trigger on subgroup events.'),
  member_events: p.boolean().optional().describe('Trigger on member events.'),
  project_events: p.boolean().optional().describe('Trigger on project events.'),
};

const systemEvents = {
  repository_update_events: p.boolean().optional().describe('Trigger on repository update events.'),
};

const url = () => p.string().describe('The URL to send the request to (http or https).');
const id = p.string().describe('ID or URL-encoded path of the project or group.');
const hookId = p.integer().describe('ID of the hook.');

export const ProjectHooksInput = params({ id, ...paginationParams });
export const ProjectHookRefInput = params({ id, hook_id: hookId });
export const CreateProjectHookInput = params({ id, url: url(), ...common, ...projectEvents });
export const UpdateProjectHookInput = params({ id, hook_id: hookId, url: url().optional(), ...common, ...projectEvents });

export const GroupHooksInput = ProjectHooksInput;
export const GroupHookRefInput = ProjectHookRefInput;
export const CreateGroupHookInput = params({ id, url: url(), ...common, ...groupEvents });
export const UpdateGroupHookInput = params({ id, hook_id: hookId, url: url().optional(), ...common, ...groupEvents });

export const SystemHooksInput = params({ ...paginationParams });
export const SystemHookRefInput = params({ hook_id: hookId });
export const CreateSystemHookInput = params({ url: url(), ...common, ...systemEvents });
export const UpdateSystemHookInput = params({ hook_id: hookId, url: url().optional(), ...common, ...systemEvents });

export const HOOK_TRIGGERS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events',
  'merge_requests_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'releases_events', 'milestone_events', 'emoji_events',
  'resource_access_token_events', 'deployment_events', 'feature_flag_events', 'vulnerability_events',
] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

export const TestHookInput = params({ id, hook_id: hookId, trigger: p.enum(HOOK_TRIGGERS).describe('The event to send a sample of.') });
export const HookKeyInput = params({ id, hook_id: hookId, key: p.string().describe('Name of the header or variable.') });
export const SetHookKeyInput = params({ id, hook_id: hookId, key: p.string().describe('Name of the header or variable.'), value: p.string().describe('Its value; never returned.') });
export const SystemHookKeyInput = params({ hook_id: hookId, key: p.string().describe('Name of the header or variable.') });
export const SetSystemHookKeyInput = params({ hook_id: hookId, key: p.string().describe('Name of the header or variable.'), value: p.string().describe('Its value; never returned.') });

const HTTP_STATUSES = Array.from({ length: 500 }, (_, i) => String(100 + i));
export const HookEventsInput = params({
  id,
  hook_id: hookId,
  status: p.array(p.enum([...HTTP_STATUSES, 'successful', 'client_failure', 'server_failure'])).commaSeparated().optional()
    .describe('Status codes, or `successful`, `client_failure`, `server_failure` (comma-separated or an array).'),
  page: p.integer().min(1).default(1),
  per_page: p.enum(Array.from({ length: 20 }, (_, i) => i + 1)).default(20).describe('1 to 20.'),
});
export const ResendHookEventInput = params({ id, hook_id: hookId, hook_log_id: p.integer().describe('ID of the delivery (hook log).') });

export type CreateProjectHookInput = InferShape<typeof CreateProjectHookInput.shape>;
export type UpdateProjectHookInput = InferShape<typeof UpdateProjectHookInput.shape>;
export type CreateGroupHookInput = InferShape<typeof CreateGroupHookInput.shape>;
export type UpdateGroupHookInput = InferShape<typeof UpdateGroupHookInput.shape>;
export type CreateSystemHookInput = InferShape<typeof CreateSystemHookInput.shape>;
export type UpdateSystemHookInput = InferShape<typeof UpdateSystemHookInput.shape>;
export type HookParentKind = 'project' | 'group';
export type CreateHookInput = Partial<InferShape<typeof CreateGroupHookInput.shape> & InferShape<typeof CreateSystemHookInput.shape>> & { url?: string };
export type HookEventsQuery = InferShape<typeof HookEventsInput.shape>;
