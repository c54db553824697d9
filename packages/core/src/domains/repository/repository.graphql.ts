/**
 * GitLab's GraphQL `Commit` (app/graphql/types/commit_type.rb, from the REST commit entity) and
 * `Project.repository { rootRef empty exists }` (app/graphql/types/repository_type.rb), from the
 * project's REST answer.
 */
import { gql, type GraphqlModule } from '../../kernel/graphql.js';
import type { CommitEntity } from './commit.entity.js';

const { nn, string, boolean, from } = gql;

export const repositoryGraphql: GraphqlModule = (g) => {
  g.defineObject('Commit', {
    description: 'A commit.',
    fields: () => ({
      id: { type: nn(gql.id), description: 'ID (global ID) of the commit.', resolve: (c: CommitEntity) => `gid://gitlab/CommitPresenter/${c.id}` },
      sha: from(nn(string), 'id', 'SHA1 ID of the commit.'),
      shortId: from(nn(string), 'short_id', 'Short SHA1 ID of the commit.'),
      title: from(string, 'title', 'Title of the commit message.'),
      message: from(string, 'message', 'Raw commit message.'),
      description: { type: string, description: 'Description of the commit message.', resolve: (c: CommitEntity) => c.message.split('\n').slice(1).join('\n').replace(/^\n+/, '') || null },
      authorName: from(string, 'author_name', 'Commit authors name.'),
      authorEmail: from(string, 'author_email', 'Commit authors email.'),
      // GitLab's Time scalar is `iso8601` (whole seconds, the commit's offset): the REST value without `.000`.
      authoredDate: { type: g.type('Time'), description: 'Timestamp of when the commit was authored.', resolve: (c: CommitEntity) => c.authored_date.replace(/\.000(?=[-+Z])/, '') },
      committerName: from(string, 'committer_name', 'Name of the committer.'),
      committerEmail: from(string, 'committer_email', 'Email of the committer.'),
      committedDate: { type: g.type('Time'), description: 'Timestamp of when the commit was committed.', resolve: (c: CommitEntity) => c.committed_date.replace(/\.000(?=[-+Z])/, '') },
      webUrl: from(nn(string), 'web_url', 'Web URL of the commit.'),
      webPath: { type: nn(string), description: 'Web path of the commit.', resolve: (c: CommitEntity) => new URL(c.web_url).pathname },
    }),
  });
  g.defineObject('Repository', {
    description: 'A repository.',
    fields: () => ({
      rootRef: { type: string, description: 'Default branch of the repository.', resolve: (p: { default_branch: string | null; empty_repo: boolean }) => (p.empty_repo ? null : p.default_branch) },
      empty: from(nn(boolean), 'empty_repo', 'Indicates repository has no visible content.'),
      exists: { type: nn(boolean), description: 'Indicates a corresponding Git repository exists on disk.', resolve: (p: { empty_repo: boolean }) => !p.empty_repo },
    }),
  });
  g.extend('Project', () => ({
    repository: { type: g.object('Repository'), description: 'Git repository of the project.', resolve: (p: { repository_access_level?: string }) => p },
  }));
};
