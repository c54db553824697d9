/**
 * Tags: GitLab's `API::Tags`. Deleting a tag deletes its release, as `Tags::DestroyService`
 * does. Name and update orders page in SQL; the version order sorts the (filtered) names in
 * memory, as SQL has no version collation, and loads the rows of one page.
 */
import { repositoryTransaction } from './git-write.js';
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionError } from '../../kernel/errors.js';
import { can } from '../../access/policy.js';
import { canCreateTag, tagProtectionsOf, TAG_MESSAGES } from './protection.js';
import { clampPerPage, paginate, COUNT_LIMIT, type Page } from '../../kernel/pagination.js';
import { bytewise, nameSearch } from './history.queries.js';
import { selectCommit, selectTag } from './refs.js';
import { findCodeProject, findPushProject } from './repository-access.js';
import { presentTags, type TagEntity } from './tag.entity.js';
import type { CreateTagInput, ListTagsInput, TagRefInput } from './tags.schema.js';
import { createTagIn, deleteRefIn } from './write-commit.js';
import { runRefPushed } from './push-hooks.js';

/** git's `versionsort`: digit runs compare as numbers. */
export function compareVersions(a: string, b: string): number {
  const split = (s: string) => s.match(/\d+|\D+/g) ?? [];
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pn = /^\d/.test(p);
    const qn = /^\d/.test(q);
    if (pn && qn) {
      const d = Number(p) - Number(q);
      if (d !== 0) return d;
      return p.length - q.length;
    }
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/** GET /projects/:id/repository/tags: newest first by default. */
export async function listTags(ctx: Ctx, input: ListTagsInput): Promise<Page<TagEntity>> {
  const project = await findCodeProject(ctx, input.id);
  let q = ctx.db.selectFrom('repository_refs as r').selectAll('r').where('r.project_id', '=', project.id).where('r.kind', '=', 'tag');
  if (input.search) q = q.where(nameSearch('r.name', input.search));
  const byName = bytewise(ctx.dialect, 'r.name');
  if (input.order_by === 'version') {
    const names = (await q.clearSelect().select('r.name').execute()).map((r) => r.name).sort(compareVersions);
    if (input.sort === 'desc') names.reverse();
    const perPage = clampPerPage(input.per_page);
    const slice = names.slice((input.page - 1) * perPage, input.page * perPage);
    const rows = slice.length ? await q.where('r.name', 'in', slice).execute() : [];
    rows.sort((a, b) => slice.indexOf(a.name) - slice.indexOf(b.name));
    return {
      items: await presentTags(ctx, project, rows),
      page: input.page,
      perPage,
      total: names.length > COUNT_LIMIT ? null : names.length,
      hasNext: names.length > input.page * perPage,
    };
  }
  if (input.order_by === 'updated') {
    // An annotated tag's date is its own; a lightweight tag's is its commit's.
    q = q
      .leftJoin('repository_commits as c', (j) => j.onRef('c.sha', '=', 'r.commit_sha').on('c.project_id', '=', project.id))
      .orderBy(sql`case when r.message is not null then r.created_at else c.committed_date end`, input.sort);
  }
  q = q.orderBy(sql`${byName} ${sql.raw(input.order_by === 'name' ? input.sort : 'asc')}`);
  return paginate(ctx.db, q, input, (rows) => presentTags(ctx, project, rows));
}

/** GET /projects/:id/repository/tags/:tag_name */
export async function getTag(ctx: Ctx, input: TagRefInput): Promise<TagEntity> {
  const project = await findCodeProject(ctx, input.id);
  const row = await selectTag(ctx.db, project.id, input.tag_name);
  if (!row) throw new NotFoundError('Tag');
  return (await presentTags(ctx, project, [row]))[0]!;
}

/** POST /projects/:id/repository/tags (Developer): 201; problems are 400 with `Tags::CreateService`'s messages. */
export async function createTag(ctx: Ctx, input: CreateTagInput): Promise<TagEntity> {
  const project = await findPushProject(ctx, input.id);
  // A protected tag (…/protected_tags) needs a create entry admitting the caller: GitLab's hook
  // refuses it and the API answers 400 with the hook's message.
  if (!(await selectTag(ctx.db, project.id, input.tag_name)) && !(await canCreateTag(ctx, project, input.tag_name))) {
    throw new BadRequestError(TAG_MESSAGES.createProtectedTag, { raw: true });
  }
  const { tag } = await repositoryTransaction(ctx, (trx) => createTagIn(trx, ctx, project, input.tag_name, input.ref, input.message));
  await runRefPushed(ctx, project, { kind: 'tag', name: input.tag_name });
  return (await presentTags(ctx, project, [tag]))[0]!;
}

/**
 * DELETE /projects/:id/repository/tags/:tag_name (Developer): 204; the tag's release goes with it.
 * A protected tag, as GitLab: `Gitlab::Git::TagPolicy#delete_tag` needs `delete_protected_tag`
 * (Maintainer), else 403 `403 Forbidden`; then Gitaly's pre-receive TagCheck also asks the tag's
 * create access (`can_create_tag?`), else 400 with its message (`Tags::DestroyService` answers a
 * PreReceiveError so).
 */
export async function deleteTag(ctx: Ctx, input: TagRefInput, options: { unmodifiedSince?: Date } = {}): Promise<void> {
  const project = await findPushProject(ctx, input.id);
  const row = await selectTag(ctx.db, project.id, input.tag_name);
  if (!row) throw new NotFoundError('Tag');
  const isProtected = (await tagProtectionsOf(ctx.db, project.id, input.tag_name)).length > 0;
  if (isProtected && !(await can(ctx, 'delete_protected_tag', { kind: 'project', project }))) throw new ForbiddenError();
  const commit = await selectCommit(ctx.db, project.id, row.commit_sha);
  if (options.unmodifiedSince && commit && new Date(commit.authored_date).getTime() > options.unmodifiedSince.getTime()) throw new PreconditionError();
  if (isProtected && !(await canCreateTag(ctx, project, input.tag_name))) throw new BadRequestError(TAG_MESSAGES.createProtectedTag, { raw: true });
  // Its release goes too: releases reacts to the deletion (Tags::DestroyService runs Releases::DestroyService).
  await repositoryTransaction(ctx, (trx) => deleteRefIn(trx, ctx, project, row));
}
