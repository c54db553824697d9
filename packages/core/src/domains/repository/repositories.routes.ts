import type { Ctx } from '../../access/context.js';
import { ok, paged, route, stream, type Route } from '../../kernel/route.js';
import { getArchive, ArchiveInput } from './archive.js';
import { compare, CompareInput, ContributorsInput, listContributors, mergeBase, MergeBaseInput } from './compare.js';

const tag = 'repositories';

const archive = async (ctx: Ctx, input: ArchiveInput) => {
  const found = await getArchive(ctx, input);
  // Workhorse's headers for an archive download.
  return stream(found.body, found.contentType, { headers: { 'Content-Disposition': `attachment; filename="${found.fileName.replace(/["\\\r\n]/g, '_')}"`, 'Content-Transfer-Encoding': 'binary' } });
};

export const repositoriesRoutes: Route[] = [
  route('GET', '/projects/:id/repository/compare', { auth: 'optional', jobToken: true, params: CompareInput, tag, summary: 'Compare two branches, tags or commits: commits and diffs' },
    async (ctx, input) => ok(await compare(ctx, input))),
  route('GET', '/projects/:id/repository/merge_base', { auth: 'optional', jobToken: true, params: MergeBaseInput, tag, summary: 'The common ancestor of two or more refs' },
    async (ctx, input) => ok(await mergeBase(ctx, input))),
  route('GET', '/projects/:id/repository/contributors', { auth: 'optional', jobToken: true, params: ContributorsInput, tag, summary: 'Authors of the ref\'s newest 2,000 commits with their commit counts' },
    async (ctx, input) => paged(await listContributors(ctx, input))),
  route('GET', '/projects/:id/repository/archive', { auth: 'optional', jobToken: true, params: ArchiveInput, tag, summary: 'Download the repository at a ref (tar.gz by default), streamed' }, archive),
  route('GET', '/projects/:id/repository/archive.:format', { auth: 'optional', jobToken: true, params: ArchiveInput, tag, summary: 'Download the repository at a ref in a format (tar.gz, tar.bz2, tar, zip...), streamed' }, archive),
];
