/**
 * Hook test samples of push, tag push, release and milestone events (GitLab's
 * Integrations::ProjectTestData): the push sample from the default branch's last commits (GitLab's
 * fixed sample for an empty repository), the latest release ("Ensure the project has
 * releases." without one), the first milestone or an unsaved sample one.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { requireUser } from '../../access/policy.js';
import type { MilestoneRow } from '../milestones/index.js';
import { buildPushSample } from './payloads-push.js';
import { buildMilestonePayload, buildReleasePayload } from './payloads-releases.js';

type Sample = { data: Record<string, unknown>; trigger: string } | { error: string };

/** DataBuilder::Push::SAMPLE_DATA (and SAMPLE_TAG_DATA), sent for an empty repository. */
export function pushSampleData(tag: boolean): Record<string, unknown> {
  const data: Record<string, unknown> = {
    object_kind: 'push',
    event_name: 'push',
    before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
    after: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    ref: 'refs/heads/master',
    ref_protected: true,
    checkout_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    message: 'Hello World',
    user_id: 4,
    user_name: 'John Smith',
    user_email: 'john@example.com',
    user_avatar: 'https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80',
    project_id: 15,
    project: {
      id: 15,
      name: 'gitlab',
      description: '',
      web_url: 'http://test.example.com/gitlab/gitlab',
      avatar_url: 'https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80',
      git_ssh_url: 'git@test.example.com:gitlab/gitlab.git',
      git_http_url: 'http://test.example.com/gitlab/gitlab.git',
      namespace: 'gitlab',
      visibility_level: 0,
      path_with_namespace: 'gitlab/gitlab',
      default_branch: 'master',
    },
    commits: [
      {
        id: 'c5feabde2d8cd023215af4d2ceeb7a64839fc428',
        message: 'Add simple search to projects in public area\n\ncommit message body',
        title: 'Add simple search to projects in public area',
        timestamp: '2013-05-13T18:18:08+00:00',
        url: 'https://test.example.com/gitlab/gitlab/-/commit/c5feabde2d8cd023215af4d2ceeb7a64839fc428',
        author: { name: 'Test User', email: 'test@example.com' },
      },
    ],
    total_commits_count: 1,
    push_options: { ci: { skip: true } },
  };
  return tag ? { ...data, object_kind: 'tag_push', event_name: 'tag_push', ref: 'refs/tags/v1.0.0' } : data;
}

/** The sample for a push, tag push, release or milestone trigger. */
export async function refsTestPayload(ctx: Ctx, projects: ProjectRow[], trigger: 'push_events' | 'tag_push_events' | 'releases_events' | 'milestone_events'): Promise<Sample> {
  const project = projects[0];
  switch (trigger) {
    case 'push_events':
    case 'tag_push_events': {
      const tag = trigger === 'tag_push_events';
      const data = project && (await buildPushSample(ctx.db, ctx.git, ctx.urls, requireUser(ctx), project, tag));
      return { data: data ?? pushSampleData(tag), trigger: tag ? 'tag_push_hooks' : 'push_hooks' };
    }
    case 'releases_events': {
      const ids = projects.length ? projects.map((p) => p.id) : [0];
      const release = await ctx.db.selectFrom('releases').selectAll().where('project_id', 'in', ids).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
      if (!release) return { error: 'Ensure the project has releases.' };
      const data = await buildReleasePayload(ctx.db, ctx.urls, projects.find((p) => p.id === release.project_id)!, release, 'create');
      return { data, trigger: 'release_hooks' };
    }
    default: {
      if (!project) return { error: 'Testing not available for this hook' };
      // Gitlab::DataBuilder::Milestone.build_sample: the project's first milestone, or an unsaved sample.
      const first = await ctx.db.selectFrom('milestones').selectAll().where('project_id', '=', project.id).orderBy('id').executeTakeFirst();
      const now = nowIso(ctx);
      const inAWeek = new Date(ctx.clock.now().getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
      const milestone: MilestoneRow = first ?? {
        id: 1, iid: 1, title: 'Sample milestone', description: 'Sample milestone description', state: 'active',
        created_at: now, updated_at: now, due_date: inAWeek, start_date: now.slice(0, 10), group_id: null, project_id: project.id,
      };
      return { data: await buildMilestonePayload(ctx.db, ctx.urls, project, milestone, 'create'), trigger: 'milestone_hooks' };
    }
  }
}
