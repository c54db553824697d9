/**
 * Guard for issue 30 ("no constant where GitLab computes a value"): every field of each main
 * entity is fetched in a minimal state (just created, nothing around it) and in rich states
 * (activity, relations, CI, deployments, reactions...), all built through the HTTP API. A
 * field whose value is the same in every state is a constant: the test fails unless the field
 * is in ALLOWED with its reason, and fails too when an allowed field does change (so the list
 * stays honest) or names a field no state has.
 *
 * Embedded entities (an issue's author, a job's pipeline...) are compared whole here; each is
 * checked field by field as an entity of its own, and EMBEDDED checks that the copies embedded
 * elsewhere carry what the entity itself answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { buildZip } from './artifacts-support.js';
import { createRunner, finishJob, multipart, patchTrace } from './ci-support.js';
import { expectStatus } from './http.js';
import { basic, nupkg, putPackage } from './packages-fixtures.js';

const T0 = '2024-05-06T09:00:00.000Z';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * Fields that stay the same in every state, each with why. "not computed yet: …" names what
 * GitLab computes that Forgelet does not (yet); "not served: …" a feature whose endpoints
 * Forgelet does not serve, so nothing can change the field; the others are constant in GitLab
 * too for what Forgelet serves.
 */
const ALLOWED: Record<string, string> = {
  'group.two_factor_grace_period': 'not served: the two_factor_grace_period parameter (GitLab keeps it, 48 by default)',
  'group.auto_devops_enabled': 'not served: the auto_devops_enabled parameter (null: the instance default)',
  'group.emails_disabled': 'not served: the emails_enabled parameter (GitLab keeps it; emails_disabled is its negation)',
  'group.emails_enabled': 'not served: the emails_enabled parameter',
  'group.mentions_disabled': 'not served: the mentions_disabled parameter',
  'group.default_branch_protection': 'not served: the default_branch_protection parameter (2, fully protected, is the instance default)',
  'group.avatar_url': 'not served: avatars',
  'group.organization_id': 'one organization: every group is in the default one',
  'group.shared_runners_setting': 'not served: the shared_runners_setting parameter',
  'group.ldap_cn': 'no LDAP: GitLab answers null without LDAP group links',
  'group.ldap_access': 'no LDAP: GitLab answers null without LDAP group links',
  'group.marked_for_deletion_on': 'not served: delayed deletion (a deleted group goes at once, never marked for deletion)',
  'group.wiki_access_level': 'not served: group wikis and the wiki_access_level parameter',

  'project.forks_count': 'not served: forks',
  'project.star_count': 'not served: starring',
  'project.avatar_url': 'not served: avatars',
  'project.permissions.project_access.notification_level': 'not served: notification settings (3 is the default, global)',
  'project.permissions.group_access.notification_level': 'not served: notification settings (3 is the default, global)',
  'project_list.forks_count': 'not served: forks',
  'project_list.star_count': 'not served: starring',
  'project_list.avatar_url': 'not served: avatars',

  'issue.time_stats.time_estimate': 'not served: time tracking (time_estimate/add_spent_time endpoints, /estimate and /spend quick actions)',
  'issue.time_stats.total_time_spent': 'not served: time tracking',
  'issue.time_stats.human_time_estimate': 'not served: time tracking',
  'issue.time_stats.human_total_time_spent': 'not served: time tracking',
  'issue.severity': "not served: setting an incident's severity (GraphQL issueSetSeverity, the /severity quick action)",
  'issue.moved_to_id': 'not served: moving issues (POST /projects/:id/issues/:issue_iid/move)',
  'issue_list.time_stats.time_estimate': 'not served: time tracking',
  'issue_list.time_stats.total_time_spent': 'not served: time tracking',
  'issue_list.time_stats.human_time_estimate': 'not served: time tracking',
  'issue_list.time_stats.human_total_time_spent': 'not served: time tracking',
  'issue_list.severity': "not served: setting an incident's severity",
  'issue_list.moved_to_id': 'not served: moving issues',

  'note.type': 'not served: the discussions API and diff notes (DiscussionNote, DiffNote); notes made through the notes API have no type',
  'note.attachment': "legacy: GitLab's API makes no note attachments (uploads go in the body), null for every note it creates",
  'note.system': 'not computed yet: GitLab records system notes for actions (closed, labels added, description changed...)',
  'note.resolvable': 'not served: resolvable discussions (notes in merge request discussions)',
  'note.imported': 'not computed yet: notes a direct transfer brings are imported (imported_from gitlab_migration)',
  'note.imported_from': 'not computed yet: notes a direct transfer brings are imported_from gitlab_migration',
  'note.commands_changes': 'not served: quick actions in note bodies',
  'award_emoji.url': "not served: custom emoji (GitLab answers a custom emoji's image; Unicode emoji, the only ones here, have null)",
  'label.priority': 'not served: label priorities (the priority parameter)',

  'user.state': 'not served: blocking, deactivating and banning users',
  'user.locked': 'GitLab locks accounts after failed password sign-ins; Forgelet has no password sign-in',
  'user.avatar_url': "not computed yet: GitLab answers a Gravatar URL from the user's email while Gravatar is on (the default)",
  'user.two_factor_enabled': 'not served: two-factor authentication',
  'user.private_profile': 'not served: the private_profile parameter',
  'member.state': 'not served: blocking users (as user.state)',
  'member.locked': 'no password sign-in (as user.locked)',
  'member.avatar_url': 'not computed yet: Gravatar (as user.avatar_url)',
  'member.membership_state': "GitLab answers 'awaiting' only for members waiting for a seat (user caps, SaaS), which Forgelet has not",
  'snippet.ssh_url_to_repo': 'not served: snippet repositories',
  'snippet.http_url_to_repo': 'not served: snippet repositories',
  'snippet.imported': 'not computed yet: a direct transfer brings no snippets here (GitLab marks the ones it imports)',
  'snippet.imported_from': 'not computed yet: a direct transfer brings no snippets here',

  'epic.upvotes': 'not served: award emoji on epics',
  'epic.downvotes': 'not served: award emoji on epics',

  'merge_request.imported': 'not computed yet: merge requests a direct transfer brings are imported (imported_from gitlab_migration)',
  'merge_request.imported_from': 'not computed yet: merge requests a direct transfer brings are imported_from gitlab_migration',
  'merge_request.merge_after': 'not served: the merge_after parameter (scheduled merges)',
  'merge_request.merge_when_pipeline_succeeds': 'not served: auto-merge (merge_when_pipeline_succeeds / auto_merge on PUT merge)',
  'merge_request.has_conflicts': 'no state here has branches that conflict (git merge-tree finds them: repository-merges.test.ts, served/merge-request-git.test.ts)',
  'merge_request.time_stats.time_estimate': 'not served: time tracking',
  'merge_request.time_stats.total_time_spent': 'not served: time tracking',
  'merge_request.time_stats.human_time_estimate': 'not served: time tracking',
  'merge_request.time_stats.human_total_time_spent': 'not served: time tracking',
  'merge_request.blocking_discussions_resolved': 'not served: resolvable discussions (and only_allow_merge_if_all_discussions_are_resolved)',
  'merge_request.approvals_before_merge': 'not served: the deprecated approvals_before_merge parameter (null unless it was given)',
  'merge_request.merge_error': "not computed yet: GitLab keeps the error of a merge that failed in its worker; Forgelet merges within the request and answers the error",
  'merge_request_list.imported': 'not computed yet: imported by a direct transfer (as merge_request.imported)',
  'merge_request_list.imported_from': 'not computed yet: imported by a direct transfer (as merge_request.imported_from)',
  'merge_request_list.merge_after': 'not served: scheduled merges',
  'merge_request_list.merge_when_pipeline_succeeds': 'not served: auto-merge',
  'merge_request_list.has_conflicts': 'no state here has branches that conflict (as merge_request.has_conflicts)',
  'merge_request_list.time_stats.time_estimate': 'not served: time tracking',
  'merge_request_list.time_stats.total_time_spent': 'not served: time tracking',
  'merge_request_list.time_stats.human_time_estimate': 'not served: time tracking',
  'merge_request_list.time_stats.human_total_time_spent': 'not served: time tracking',
  'merge_request_list.blocking_discussions_resolved': 'not served: resolvable discussions',
  'merge_request_list.approvals_before_merge': 'not served: the deprecated approvals_before_merge parameter',

  'release.evidences': "not computed yet: GitLab collects a release's evidence (its milestones and issues, Releases::CreateEvidenceService) when it is created",

  'pipeline.committed_at': 'GitLab sets it only for external pipelines (reported by commit statuses), which Forgelet has not; null for the others',
  'pipeline.coverage': "not computed yet: the average of its jobs' coverage (job.coverage)",
  'pipeline.detailed_status.has_details': 'true for whoever may read the pipeline, the only ones it is shown to',
  'pipeline.detailed_status.illustration': "GitLab's pipeline statuses have no illustration (jobs' have)",
  'job.coverage': "not computed yet: GitLab matches the job's coverage regex against its log when it finishes (Forgelet ignores the coverage keyword: the regex would run unbounded on the log, GitLab uses RE2)",
  'job.erased_at': 'not served: erasing jobs (POST /projects/:id/jobs/:job_id/erase)',
  'job.project': "GitLab answers the outbound job token scope, which neither its API nor Forgelet's can turn on",
  'job.archived': 'GitLab archives jobs older than the archive_builds_in instance setting, unset by default and not served',
  'runner.ip_address': 'GitLab 17.0 and later answer null: runner_manager.ip_address has it',
  'environment.auto_stop_at': "not computed yet: GitLab sets it from the job's environment:auto_stop_in when it deploys (and stops the environment then)",
  'package.package_type': 'NuGet is the only package type served',
  'package.status': "NuGet uploads are processed within the request: GitLab's processing (and error, here a refused upload) are never seen",
};

/** Paths compared whole (embedded entities, checked on their own). */
const EMBEDDED_KEYS = new Set([
  'author', 'assignee', 'assignees', 'closed_by', 'merged_by', 'merge_user', 'reviewers', 'user', 'owner', 'created_by', 'namespace',
  'milestone', 'milestones', 'pipeline', 'head_pipeline', 'commit', 'runner', 'runner_manager', 'deployable', 'environment', 'last_deployment',
  'project', 'projects', 'groups', 'approvals', 'approval_summary', 'member_role', 'links', 'sources', 'artifacts', 'versions', 'files',
]);

/** The entities checked: each GET shape of the main resources. */
const ENTITIES = [
  'group', 'project', 'project_list', 'issue', 'issue_list', 'note', 'award_emoji', 'milestone', 'label', 'user', 'member', 'snippet', 'epic', 'epic_issue',
  'iteration', 'merge_request', 'merge_request_list', 'release', 'pipeline', 'pipeline_list', 'job', 'runner', 'environment', 'deployment', 'package',
];

/** Leaf paths of an entity: nested objects flattened with dots, arrays and embedded entities kept whole. */
function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [k, v] of entries) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (EMBEDDED_KEYS.has(k) && prefix === '') out.set(path, JSON.stringify(v));
      else flatten(v, path, out);
    }
    return out;
  }
  out.set(prefix, JSON.stringify(value));
  return out;
}

interface Verdict {
  /** Paths with one value in every state that has them (two at least). */
  constant: Map<string, string>;
  /** Paths only one state has: nothing to compare them with. */
  single: Set<string>;
  /** Every path seen in some state. */
  paths: Set<string>;
}

/**
 * A field may be absent from some states (GitLab shows some only when they apply: a
 * project's `open_issues_count` while issues are on): it is compared among the states that
 * have it, so a field that is constant wherever it appears is still caught.
 */
function compare(states: unknown[]): Verdict {
  const flat = states.map((s) => flatten(s));
  const paths = new Set(flat.flatMap((m) => [...m.keys()]));
  const constant = new Map<string, string>();
  const single = new Set<string>();
  const parents = new Set([...paths].flatMap((p) => p.split('.').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
  for (const path of paths) {
    // null in one state, an object in another: it changes (the object's fields are compared on their own).
    if (parents.has(path)) continue;
    const values = flat.map((m) => m.get(path)).filter((v): v is string => v !== undefined);
    if (values.length < 2) single.add(path);
    else if (values.every((v) => v === values[0])) constant.set(path, values[0]!);
  }
  return { constant, single, paths };
}

/** What is wrong with one entity's states against the allow-list. */
function problems(entity: string, states: unknown[]): string[] {
  assert.ok(states.length >= 2, `${entity}: a minimal and at least one rich state`);
  const { constant, single, paths } = compare(states);
  const out: string[] = [];
  for (const [path, value] of constant) {
    if (!(`${entity}.${path}` in ALLOWED)) out.push(`${entity}.${path} is ${value} in every state`);
  }
  for (const path of single) out.push(`${entity}.${path} is in one state only: add a state that has it`);
  for (const key of Object.keys(ALLOWED)) {
    if (!key.startsWith(`${entity}.`)) continue;
    const path = key.slice(entity.length + 1);
    if (!paths.has(path)) out.push(`${key} is allow-listed but no state has it`);
    else if (!constant.has(path) && !single.has(path)) out.push(`${key} is allow-listed but changes: take it off the list`);
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: no constant where GitLab computes a value (issue 30)`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    /** Entity name → [minimal, rich...]. */
    const states: Record<string, unknown[]> = {};
    /** Embedded copies and the entity they must agree with: [where, embedded, canonical]. */
    const embedded: [string, any, any][] = [];

    const call = async (method: string, path: string, body?: unknown, token?: string, status?: number) => {
      const r = await f.api(method, path, { body, token });
      if (status !== undefined) expectStatus(r, status);
      else assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
      return r.body;
    };
    const get = (path: string, token?: string) => call('GET', path, undefined, token, 200);
    const at = (ms: number) => clock.set(new Date(Date.parse(T0) + ms), true);
    const add = (entity: string, ...values: unknown[]) => (states[entity] ??= []).push(...values);
    /**
     * An epic's issue is the issue entity (guarded as `issue`) with the association's fields:
     * those are compared here, the rest must be what the issue answers.
     */
    const epicIssue = (entry: any, issue: any) => {
      const { epic_issue_id, relative_position, ...rest } = entry;
      const { subscribed: _subscribed, ...issueFields } = issue;
      embedded.push(['epic_issue', rest, issueFields]);
      assert.deepEqual(Object.keys(rest), Object.keys(issueFields), 'the issue entity without subscribed');
      return { epic_issue_id, relative_position };
    };

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock });
      await buildMinimal();
      await buildRich();
    });
    after(() => f?.stop());

    /** Every entity just created, with nothing but the required fields, by root. */
    async function buildMinimal() {
      const group = await call('POST', '/groups', { name: 'Plain', path: 'plain' });
      const project = await call('POST', '/projects', { name: 'plain', namespace_id: group.id });
      add('group', await get(`/groups/${group.id}`));
      add('project', await get(`/projects/${project.id}`));
      add('project_list', (await get('/projects?search=plain&order_by=id&sort=asc'))[0]);
      const scratch = await call('POST', '/projects', { name: 'scratch', merge_method: 'ff' });
      add('project', await get(`/projects/${scratch.id}`));
      add('project_list', (await get('/projects?search=scratch'))[0]);

      const issue = await call('POST', `/projects/${project.id}/issues`, { title: 'Plain issue' });
      add('issue', await get(`/projects/${project.id}/issues/${issue.iid}`));
      add('issue_list', (await get(`/projects/${project.id}/issues`))[0]);
      const note = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'plain note' });
      add('note', await get(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`));
      const award = await call('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' });
      add('award_emoji', await get(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${award.id}`));
      const milestone = await call('POST', `/projects/${project.id}/milestones`, { title: 'plain' });
      add('milestone', await get(`/projects/${project.id}/milestones/${milestone.id}`));
      const groupMilestone = await call('POST', `/groups/${group.id}/milestones`, { title: 'plain group' });
      add('milestone', await get(`/groups/${group.id}/milestones/${groupMilestone.id}`));
      const label = await call('POST', `/projects/${project.id}/labels`, { name: 'plain', color: '#F0F0F0' });
      add('label', await get(`/projects/${project.id}/labels/${label.id}`));
      const user = await f.createUser('plainuser');
      add('user', await get(`/users/${user.id}`));
      await call('POST', `/projects/${project.id}/members`, { user_id: user.id, access_level: 10 });
      add('member', await get(`/projects/${project.id}/members/${user.id}`));
      const snippet = await call('POST', `/projects/${project.id}/snippets`, { title: 'plain', file_name: 'plain.txt', content: 'plain' });
      add('snippet', await get(`/projects/${project.id}/snippets/${snippet.id}`));
      const epic = await call('POST', `/groups/${group.id}/epics`, { title: 'Plain epic' });
      add('epic', await get(`/groups/${group.id}/epics/${epic.iid}`));
      await call('POST', `/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`);
      add('epic_issue', epicIssue((await get(`/groups/${group.id}/epics/${epic.iid}/issues`))[0], await get(`/projects/${project.id}/issues/${issue.iid}`)));
      const cadence = await call('POST', `/forgelet/groups/${group.id}/iteration_cadences`, { title: 'Plain cadence', automatic: false });
      await call('POST', `/forgelet/groups/${group.id}/iterations`, { cadence_id: cadence.id, start_date: '2024-05-06', due_date: '2024-05-12' });
      add('iteration', (await get(`/groups/${group.id}/iterations`))[0]);

      // Code: one commit and a topic branch, a CI file, nothing run.
      const code = await call('POST', '/projects', { name: 'plaincode', namespace_id: group.id });
      const sha = await commitFiles(f, code.id, 'main', { 'a.txt': 'a\n', '.gitlab-ci.yml': 'build:\n  script: echo\n' });
      await commitFiles(f, code.id, 'topic', { 'b.txt': 'b\n' }, { startBranch: 'main' });
      const mr = await call('POST', `/projects/${code.id}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Plain MR' });
      add('merge_request', await get(`/projects/${code.id}/merge_requests/${mr.iid}`));
      add('merge_request_list', (await get(`/projects/${code.id}/merge_requests`))[0]);
      await call('POST', `/projects/${code.id}/releases`, { tag_name: 'v0', ref: 'main' });
      add('release', await get(`/projects/${code.id}/releases/v0`));
      const pipeline = await call('POST', `/projects/${code.id}/pipeline`, { ref: 'main' });
      add('pipeline', await get(`/projects/${code.id}/pipelines/${pipeline.id}`));
      add('pipeline_list', (await get(`/projects/${code.id}/pipelines`))[0]);
      const job = (await get(`/projects/${code.id}/pipelines/${pipeline.id}/jobs`))[0];
      add('job', await get(`/projects/${code.id}/jobs/${job.id}`));
      const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: code.id });
      add('runner', await get(`/runners/${runner.id}`));
      const environment = await call('POST', `/projects/${code.id}/environments`, { name: 'plain' });
      add('environment', await get(`/projects/${code.id}/environments/${environment.id}`));
      const deployment = await call('POST', `/projects/${code.id}/deployments`, { environment: 'plain', sha, ref: 'main', tag: false, status: 'running' });
      add('deployment', await get(`/projects/${code.id}/deployments/${deployment.id}`));
      const pushed = await putPackage(f, `/projects/${code.id}/packages/nuget`, await nupkg({ id: 'Plain.Package', version: '1.0.0' }), { Authorization: basic('root', f.rootToken) });
      expectStatus(pushed, 201);
      const pkg = (await get(`/projects/${code.id}/packages`))[0];
      add('package', await get(`/projects/${code.id}/packages/${pkg.id}`));
    }

    /** The same entities after a life: other authors, relations, activity, CI, deployments, reactions. */
    async function buildRich() {
      at(10 * DAY);
      const profile = { bio: 'Builds things', location: 'Lisbon', public_email: 'rich@example.com', website_url: 'https://rich.example.com', organization: 'Rich Co', job_title: 'Engineer' };
      const devUser = await call('POST', '/users', { username: 'richdev', name: 'Rich Dev', email: 'richdev@example.com', ...profile });
      const dev = { id: devUser.id as number, token: (await call('POST', `/users/${devUser.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).token as string };
      const mate = await f.createUser('richmate');
      const reader = await f.createUser('richreader');
      const outer = await call('POST', '/groups', { name: 'Outer', path: 'outer', visibility: 'public' }, dev.token);
      at(11 * DAY);
      const group = await call('POST', '/groups', {
        name: 'Rich Group', path: 'rich-group', parent_id: outer.id, description: 'A group with a life', visibility: 'internal',
        project_creation_level: 'maintainer', subgroup_creation_level: 'owner', request_access_enabled: false, share_with_group_lock: true,
        require_two_factor_authentication: true, lfs_enabled: false, default_branch: 'trunk',
      }, dev.token);
      at(12 * DAY);
      const project = await call('POST', '/projects', {
        name: 'Rich App', path: 'rich-app', namespace_id: group.id, description: 'An app', visibility: 'internal', topics: ['api', 'ci'],
        initialize_with_readme: true, wiki_enabled: false, approvals_before_merge: 2,
      }, dev.token);
      const main = project.default_branch as string;
      const base = `/projects/${project.id}`;
      await call('POST', `${base}/members`, { user_id: mate.id, access_level: 40, expires_at: '2030-01-01' }, dev.token);
      await call('POST', `${base}/members`, { user_id: reader.id, access_level: 20 }, dev.token);
      await call('POST', `${base}/members`, { user_id: 1, access_level: 40 }, dev.token); // root reads as a member too
      const ci = [
        'workflow:',
        '  name: "Rich $CI_COMMIT_REF_NAME"',
        'stages: [build, deploy]',
        'build:',
        '  stage: build',
        '  tags: [linux]',
        '  script: make',
        "  coverage: '/Total: (\\d+\\.\\d+)%/'",
        '  artifacts:',
        '    paths: [out.txt]',
        'lint:',
        '  stage: build',
        '  tags: [linux]',
        '  script: lint',
        '  allow_failure: true',
        'deploy:',
        '  stage: deploy',
        '  tags: [linux]',
        '  script: ship',
        '  environment:',
        '    name: production',
        '    url: https://rich.example.com',
        '',
      ].join('\n');
      at(13 * DAY);
      await commitFiles(f, project.id, main, { '.gitlab-ci.yml': ci, 'src/app.ts': 'export {};\n' }, { username: 'richdev' });
      const runner = await createRunner(f, dev.token, {
        runner_type: 'project_type', project_id: project.id, description: 'rich box', maintenance_note: 'in the rack', locked: true,
        run_untagged: false, tag_list: ['linux', 'x64'], maximum_timeout: 3600,
      });
      const info = { name: 'gitlab-runner', version: '17.8.1', revision: 'a1b2c3d4', platform: 'linux', architecture: 'arm64', executor: 'shell' };
      /** The runner takes the next job, which must be the named one. */
      const take = async (name: string) => {
        const r = await f.api('POST', '/jobs/request', { token: null, body: { token: runner.token, system_id: 's_0123456789ab', info } });
        expectStatus(r, 201);
        assert.equal(r.body.job_info.name, name);
        return r.body as { id: number; token: string };
      };
      /** Runs the pending jobs of a pipeline: build (trace with coverage, artifacts), lint (fails, allowed), deploy. */
      const runAll = async (minute: number, archive: string) => {
        at(minute * MINUTE);
        const build = await take('build');
        await patchTrace(f, build, 0, `building ${archive}\nTotal: 87.50%\n`);
        const upload = multipart({ artifact_type: 'archive', artifact_format: 'zip' }, { filename: archive, content: await buildZip([{ path: 'out.txt', content: archive }]) });
        expectStatus(await f.api('POST', `/jobs/${build.id}/artifacts`, { token: null, raw: upload.body, headers: { 'Content-Type': upload.contentType, 'JOB-TOKEN': build.token } }), 201);
        at((minute + 3) * MINUTE);
        await finishJob(f, build, 'success');
        const lint = await take('lint');
        await finishJob(f, lint, 'failed', { failure_reason: 'script_failure' });
        const deploy = await take('deploy');
        at((minute + 5) * MINUTE);
        await finishJob(f, deploy, 'success');
        return { build, lint, deploy };
      };

      // Issues and merge requests share labels and a milestone (the second of the project).
      const earlier = await call('POST', `${base}/milestones`, { title: 'Rich 0.9' }, dev.token);
      const milestone = await call('POST', `${base}/milestones`, { title: 'Rich 1.0', description: 'The first', start_date: '2024-05-01', due_date: '2024-05-20' }, dev.token);
      await call('POST', `/groups/${group.id}/labels`, { name: 'bug', color: '#D9534F', description: 'Something is *broken*' }, dev.token);
      await call('POST', `${base}/labels`, { name: 'ui', color: '#5CB85C' }, dev.token);
      const old = await call('POST', `${base}/labels`, { name: 'old', color: '#EEEEEE', archived: true }, dev.token);
      for (const title of ['one', 'two', 'three']) await call('POST', `${base}/issues`, { title, labels: 'bug' }, mate.token);
      at(14 * DAY);
      const issue = await call('POST', `${base}/issues`, {
        title: 'Rich issue', description: 'Tasks:\n- [x] one\n- [ ] two\n', labels: 'bug,ui', milestone_id: milestone.id, assignee_ids: [dev.id, mate.id],
        due_date: '2024-06-01', weight: 3, confidential: true, issue_type: 'incident', discussion_locked: true,
      }, dev.token);
      const issuePath = `${base}/issues/${issue.iid}`;
      const note = await call('POST', `${issuePath}/notes`, { body: 'A rich note', internal: true }, mate.token);
      await call('POST', `${issuePath}/award_emoji`, { name: 'thumbsup' }, mate.token);
      await call('POST', `${issuePath}/award_emoji`, { name: 'thumbsdown' }, dev.token);
      const award = await call('POST', `${issuePath}/notes/${note.id}/award_emoji`, { name: 'tada' }, dev.token);
      at(15 * DAY);
      await call('PUT', `${issuePath}/notes/${note.id}`, { body: 'A rich note, edited' }, mate.token);
      await call('PUT', issuePath, { state_event: 'close' }, mate.token);
      add('issue', await get(issuePath));
      add('issue_list', (await get(`${base}/issues?iids[]=${issue.iid}`))[0]);
      const done = await call('POST', `${base}/issues`, { title: 'Done', description: '- [x] all of it\n' }, mate.token);
      add('issue', await get(`${base}/issues/${done.iid}`));
      add('issue_list', (await get(`${base}/issues?iids[]=${done.iid}`))[0]);
      add('note', await get(`${issuePath}/notes/${note.id}`));
      add('award_emoji', await get(`${issuePath}/notes/${note.id}/award_emoji/${award.id}`));
      await call('PUT', `${base}/milestones/${milestone.id}`, { state_event: 'close' }, dev.token);
      add('milestone', await get(`${base}/milestones/${milestone.id}`));
      add('milestone', await get(`/groups/${group.id}/milestones/${(await call('POST', `/groups/${group.id}/milestones`, { title: 'Group goal' }, dev.token)).id}`));

      // A draft merge request, closed with a downvote, read by a Reporter; then one with a pipeline, an approval, merged and deployed.
      at(16 * DAY);
      await commitFiles(f, project.id, 'spike', { 'spike.txt': 'spike\n' }, { startBranch: main, username: 'richdev' });
      await commitFiles(f, project.id, 'feature', { 'src/app.ts': 'export const x = 1;\n', 'src/new.ts': 'new\n' }, { startBranch: main, username: 'richdev' });
      const draft = await call('POST', `${base}/merge_requests`, { source_branch: 'spike', target_branch: main, title: 'Draft: spike', labels: 'bug', description: `Closes #${issue.iid}` }, dev.token);
      // The rich issue again, now named by a merge request that closes it (merge_requests_count).
      add('issue', await get(issuePath));
      add('issue_list', (await get(`${base}/issues?iids[]=${issue.iid}`))[0]);
      const mr = await call('POST', `${base}/merge_requests`, {
        source_branch: 'feature', target_branch: main, title: 'Rich MR', description: '- [x] code\n- [ ] docs\n', labels: 'bug', milestone_id: milestone.id,
        assignee_ids: [dev.id], reviewer_ids: [mate.id], squash: true, remove_source_branch: true,
      }, dev.token);
      const mrPath = `${base}/merge_requests/${mr.iid}`;
      const mrNote = await call('POST', `${mrPath}/notes`, { body: 'Looks good' }, mate.token);
      await call('POST', `${mrPath}/award_emoji`, { name: 'thumbsup' }, mate.token);
      const featurePipeline = await call('POST', `${base}/pipeline`, { ref: 'feature' }, dev.token);
      const feature = await runAll(16 * 24 * 60 + 2, 'feature.zip');
      add('job', await get(`${base}/jobs/${feature.build.id}`), await get(`${base}/jobs/${feature.lint.id}`));
      await call('POST', `${mrPath}/approve`, {}, mate.token);
      add('label', await get(`${base}/labels/bug`));
      await call('POST', `${base}/labels/${old.id}/subscribe`);
      add('label', await get(`${base}/labels/${old.id}`));
      at(17 * DAY);
      const merged = await call('PUT', `${mrPath}/merge`, {}, mate.token);
      const draftPath = `${base}/merge_requests/${draft.iid}`;
      await call('POST', `${draftPath}/award_emoji`, { name: 'thumbsdown' }, mate.token);
      await call('PUT', draftPath, { state_event: 'close', discussion_locked: true }, mate.token);
      add('note', await get(`${mrPath}/notes/${mrNote.id}`));

      // The merge pushed the target branch: its pipeline runs every job; the deployment it makes is the environment's last.
      const pipeline = (await get(`${base}/pipelines?ref=${main}&source=push`))[0];
      const { build } = await runAll(18 * 24 * 60, 'artifacts.zip');
      add('job', await get(`${base}/jobs/${build.id}`));
      add('pipeline', await get(`${base}/pipelines/${pipeline.id}`));
      add('pipeline_list', (await get(`${base}/pipelines?ref=${main}`))[0]);
      const ciDeployment = (await get(`${base}/deployments?environment=production`)).at(-1);
      add('deployment', await get(`${base}/deployments/${ciDeployment.id}`));
      const production = (await get(`${base}/environments?name=production`))[0];
      await call('PUT', `${base}/environments/${production.id}`, { external_url: 'https://rich.example.com', description: 'Where users are', auto_stop_setting: 'with_action' }, dev.token);
      add('environment', await get(`${base}/environments/${production.id}`));
      at(19 * DAY);
      await call('POST', `${base}/deployments`, { environment: 'production', sha: merged.merge_commit_sha, ref: main, tag: false, status: 'success' }, dev.token);
      add('merge_request', await get(mrPath), await get(draftPath, reader.token));
      add('merge_request_list', (await get(`${base}/merge_requests?iids[]=${mr.iid}`))[0], (await get(`${base}/merge_requests?iids[]=${draft.iid}`, reader.token))[0]);

      // A release of the merged code, with a milestone and a link, released tomorrow; its tag's pipeline fails.
      await call('POST', `${base}/releases`, {
        tag_name: 'v1.0', ref: main, name: 'Version 1', description: 'The **first** one', milestones: [milestone.title],
        assets: { links: [{ name: 'binary', url: 'https://rich.example.com/bin', direct_asset_path: '/bin', link_type: 'package' }] },
        released_at: new Date(Date.parse(T0) + 20 * DAY).toISOString(),
      }, dev.token);
      add('release', await get(`${base}/releases/v1.0`));
      await call('POST', `${base}/releases`, { tag_name: 'v0.9', ref: main, milestones: [earlier.title] }, dev.token);
      add('release', await get(`${base}/releases/v0.9`));
      const tagPipeline = await call('POST', `${base}/pipeline`, { ref: 'v1.0' }, dev.token);
      at(19 * DAY + MINUTE);
      const tagBuild = await take('build');
      add('runner', await get(`/runners/${runner.id}`)); // while it runs a job
      at(19 * DAY + 2 * MINUTE);
      await finishJob(f, tagBuild, 'failed', { failure_reason: 'runner_system_failure' });
      add('job', await get(`${base}/jobs/${tagBuild.id}`));
      add('pipeline', await get(`${base}/pipelines/${tagPipeline.id}`));
      // A push of a broken CI file keeps a failed pipeline naming the error.
      expectStatus(await f.api('POST', `${base}/repository/commits`, {
        token: dev.token, body: { branch: 'broken', start_branch: main, commit_message: 'Break CI', actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: 'build: [\n' }] },
      }), 201);
      add('pipeline', await get(`${base}/pipelines/${(await get(`${base}/pipelines?ref=broken`))[0].id}`));
      void featurePipeline;

      // Runners: the busy project runner (above) and after, one registered with the project's token, paused; an instance and a group runner.
      add('runner', await get(`/runners/${runner.id}`));
      const registered = await call('POST', '/runners', { token: (await get(base, dev.token)).runners_token, info: { name: 'legacy-runner' }, paused: true, access_level: 'ref_protected', run_untagged: true, description: 'legacy' });
      add('runner', await get(`/runners/${registered.id}`));
      add('runner', await get(`/runners/${(await createRunner(f, f.rootToken, { runner_type: 'instance_type' })).id}`));
      add('runner', await get(`/runners/${(await createRunner(f, dev.token, { runner_type: 'group_type', group_id: group.id })).id}`));

      // A deployment waiting for approval: staging asks two Maintainers, one approved.
      await call('POST', `/groups/${outer.id}/protected_environments`, {
        name: 'staging', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ access_level: 40, required_approvals: 2 }],
      }, dev.token);
      await call('POST', `/groups/${outer.id}/members`, { user_id: mate.id, access_level: 40 }, dev.token);
      const waiting = await call('POST', `${base}/deployments`, { environment: 'staging', sha: merged.merge_commit_sha, ref: main, tag: false, status: 'running' }, dev.token);
      await call('POST', `${base}/deployments/${waiting.id}/approval`, { status: 'approved', comment: 'ship it' }, mate.token);
      add('deployment', await get(`${base}/deployments/${waiting.id}`));
      const review = await call('POST', `${base}/environments`, { name: 'review/old', external_url: 'https://old.example.com' }, dev.token);
      await call('POST', `${base}/environments/${review.id}/stop`, {}, dev.token);
      add('environment', await get(`${base}/environments/${review.id}`));

      // Packages: two versions, one tagged, downloaded.
      for (const version of ['1.0.0', '2.0.0']) {
        const file = await nupkg({ id: 'Rich.Package', version, tags: 'rich tagged' });
        expectStatus(await putPackage(f, `${base}/packages/nuget`, file, { Authorization: basic('richdev', dev.token) }), 201);
      }
      at(20 * DAY);
      const pkg = (await get(`${base}/packages?package_name=Rich.Package&order_by=version&sort=desc`))[0];
      const download = await fetch(`${f.url}/api/v4${base}/packages/nuget/download/rich.package/2.0.0/rich.package.2.0.0.nupkg`, { headers: { Authorization: basic('richdev', dev.token) } });
      assert.equal(download.status, 200);
      await download.arrayBuffer();
      add('package', await get(`${base}/packages/${pkg.id}`));

      // A snippet, edited.
      const snippet = await call('POST', `${base}/snippets`, { title: 'Rich', description: 'notes', visibility: 'internal', file_name: 'rich.md', content: '# Rich' }, dev.token);
      at(21 * DAY);
      await call('PUT', `${base}/snippets/${snippet.id}`, { content: '# Rich, edited' }, dev.token);
      add('snippet', await get(`${base}/snippets/${snippet.id}`));

      // Epics: a parent and a closed child with dates, labels and a color.
      const parentEpic = await call('POST', `/groups/${group.id}/epics`, { title: 'Parent' }, dev.token);
      const epic = await call('POST', `/groups/${group.id}/epics`, {
        title: 'Rich epic', description: 'Big', labels: 'bug', color: '#FF0000', confidential: true, parent_id: parentEpic.id,
        start_date: '2024-05-01', start_date_is_fixed: true, end_date: '2024-07-01', due_date_is_fixed: true,
      }, dev.token);
      // Its issues (incidents cannot be): a confidential one; the parent epic holds another.
      const planned = await call('POST', `${base}/issues`, { title: 'Planned', confidential: true, labels: 'ui', milestone_id: milestone.id }, dev.token);
      await call('POST', `/groups/${group.id}/epics/${epic.iid}/issues/${planned.id}`, undefined, dev.token);
      await call('POST', `/groups/${group.id}/epics/${parentEpic.iid}/issues/${done.id}`, undefined, dev.token);
      await call('PUT', `/groups/${group.id}/epics/${epic.iid}`, { state_event: 'close' }, dev.token);
      add('epic', await get(`/groups/${group.id}/epics/${epic.iid}`));
      add(
        'epic_issue',
        epicIssue((await get(`/groups/${group.id}/epics/${epic.iid}/issues`))[0], await get(`${base}/issues/${planned.iid}`)),
        epicIssue((await get(`/groups/${group.id}/epics/${parentEpic.iid}/issues`))[0], await get(`${base}/issues/${done.iid}`)),
      );

      // An iteration, over by now.
      const cadence = await call('POST', `/forgelet/groups/${group.id}/iteration_cadences`, { title: 'Sprints', automatic: false }, dev.token);
      await call('POST', `/forgelet/groups/${group.id}/iterations`, { cadence_id: cadence.id, start_date: '2024-05-06', due_date: '2024-05-12' }, dev.token);
      const sprint = await call('POST', `/forgelet/groups/${group.id}/iterations`, { cadence_id: cadence.id, title: 'Sprint 2', description: 'Second', start_date: '2024-05-13', due_date: '2024-05-19' }, dev.token);
      add('iteration', (await get(`/groups/${group.id}/iterations`)).find((i: any) => i.id === sprint.id));

      // Members: a Maintainer until 2030 added by the owner; one with a custom role.
      add('member', await get(`${base}/members/${mate.id}`));
      const role = await call('POST', '/member_roles', { name: 'Reader+', base_access_level: 20, read_code: true });
      await call('PUT', `${base}/members/${reader.id}`, { access_level: 20, member_role_id: role.id }, dev.token);
      add('member', await get(`${base}/members/${reader.id}`));
      const helper = await f.createUser('richhelper');
      const devRole = await call('POST', '/member_roles', { name: 'Developer+', base_access_level: 30, admin_merge_request: true });
      await call('POST', `${base}/members`, { user_id: helper.id, access_level: 30, member_role_id: devRole.id }, dev.token);
      add('member', await get(`${base}/members/${helper.id}`));

      // Users: the developer made admin and external with a project limit; a project bot.
      await call('PUT', `/users/${dev.id}`, { projects_limit: 0, can_create_group: false, external: true, admin: true });
      add('user', await get(`/users/${dev.id}`));
      const bot = await call('POST', `${base}/access_tokens`, { name: 'bot', scopes: ['api'], access_level: 30, expires_at: '2030-01-01' }, dev.token);
      add('user', await get(`/users/${bot.user_id}`));

      // Projects: this one, and a personal one archived with its features off.
      add('group', await get(`/groups/${group.id}`));
      await call('POST', `/groups/${group.id}/members`, { user_id: 1, access_level: 20 }, dev.token);
      add('project', await get(base));
      add('project_list', (await get('/projects?search=rich-app'))[0]);
      const personal = await call('POST', '/projects', { name: 'attic', issues_enabled: false, merge_requests_enabled: false, jobs_enabled: false, snippets_enabled: false }, mate.token);
      await call('POST', `/projects/${personal.id}/members`, { user_id: 1, access_level: 30 }, mate.token);
      await call('POST', `/projects/${personal.id}/archive`, {}, mate.token);
      add('project', await get(`/projects/${personal.id}`));
      add('project_list', (await get('/projects?search=attic'))[0]);

      // Copies embedded in other entities, read at one instant with what they copy.
      const richIssue = await get(issuePath);
      const richMr = await get(mrPath);
      const job = await get(`${base}/jobs/${build.id}`);
      const deployment = await get(`${base}/deployments/${ciDeployment.id}`);
      const environmentEntity = await get(`${base}/environments/${production.id}`);
      const release = await get(`${base}/releases/v1.0`);
      const simpleProject = (await get('/projects?search=rich-app&simple=true'))[0];
      const pipelineOf = (id: number) => get(`${base}/pipelines/${id}`);
      embedded.push(
        ['issue.author', richIssue.author, await get(`/users/${dev.id}`)],
        ['issue.closed_by', richIssue.closed_by, await get(`/users/${mate.id}`)],
        ['issue.milestone', richIssue.milestone, await get(`${base}/milestones/${milestone.id}`)],
        ['merge_request.head_pipeline', richMr.head_pipeline, await pipelineOf(featurePipeline.id)],
        ['merge_request.pipeline', richMr.pipeline, await pipelineOf(richMr.pipeline.id)],
        ['merge_request.milestone', richMr.milestone, await get(`${base}/milestones/${milestone.id}`)],
        ['job.pipeline', job.pipeline, await pipelineOf(pipeline.id)],
        ['job.runner', job.runner, await get(`/runners/${runner.id}`)],
        ['job.runner_manager', job.runner_manager, (await get(`/runners/${runner.id}/managers`))[0]],
        ['job.commit', job.commit, await get(`${base}/repository/commits/${job.commit.id}`)],
        ['deployment.deployable', deployment.deployable, await get(`${base}/jobs/${deployment.deployable.id}`)],
        ['deployment.environment', deployment.environment, environmentEntity],
        ['environment.last_deployment', environmentEntity.last_deployment, await get(`${base}/deployments/${environmentEntity.last_deployment.id}`)],
        ['environment.project', (await get(`${base}/environments?name=production`))[0].project, simpleProject],
        ['runner.projects', (await get(`/runners/${runner.id}`)).projects[0], simpleProject],
        ['project.namespace', (await get(base)).namespace, await get(`/groups/${group.id}`)],
        ['release.milestones', release.milestones[0], await get(`${base}/milestones/${milestone.id}`)],
        ['release.commit', release.commit, await get(`${base}/repository/commits/${release.commit.id}`)],
        ['release.author', release.author, await get(`/users/${dev.id}`)],
      );
    }

    it('every entity has a minimal and a rich state, and the allow-list names only those entities', () => {
      assert.deepEqual(Object.keys(states).sort(), [...ENTITIES].sort());
      assert.deepEqual(Object.keys(ALLOWED).filter((k) => !ENTITIES.includes(k.split('.')[0]!)), []);
    });

    it('embedded copies carry what the entity they copy answers', () => {
      const differences: string[] = [];
      for (const [where, copy, entity] of embedded) {
        assert.ok(copy && entity, `${where}: both present`);
        const shared = Object.keys(copy).filter((k) => k in entity);
        assert.ok(shared.length >= 3, `${where}: ${shared.length} fields shared`);
        for (const k of shared) {
          if (!isDeepStrictEqual(copy[k], entity[k])) differences.push(`${where}.${k}: ${JSON.stringify(copy[k])} but the entity says ${JSON.stringify(entity[k])}`);
        }
      }
      assert.deepEqual(differences, []);
    });

    for (const entity of ENTITIES) {
      it(`${entity}: no field is the same in every state unless allow-listed`, () => {
        const found = problems(entity, states[entity] ?? []);
        if (process.env.COMPUTED_FIELDS_REPORT) appendFileSync(process.env.COMPUTED_FIELDS_REPORT, `${JSON.stringify({ dialect, entity, found, states: states[entity] })}\n`);
        assert.deepEqual(found, []);
      });
    }
  });
}
