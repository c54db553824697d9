/** Project snippets: `/projects/:id/snippets[/:snippet_id[/raw]]`. */
import { usersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { deleteAwardEmojiOf } from '../award-emoji/index.js';
import { deleteNoteableNotes } from '../notes/index.js';
import { readableSnippet, readableSnippetVisibilities } from './find-snippet.js';
import { toSnippetEntity, type SnippetEntity } from './snippet.entity.js';
import { deleteSnippetById, insertSnippet, selectProjectSnippets, updateSnippetById } from './snippet.queries.js';
import type { CreateSnippetInput, ListSnippetsInput, SnippetRefInput, UpdateSnippetInput } from './snippet.schema.js';
import type { SnippetRow } from './snippet.table.js';

const VISIBILITY_RANK: Record<string, number> = { private: 0, internal: 10, public: 20 };
/** GitLab names a file sent without a name `snippetfile1.txt`. */
const DEFAULT_FILE_NAME = 'snippetfile1.txt';

/** The project, readable and with snippets enabled: GitLab's `check_snippets_enabled` answers 403. */
async function snippetsProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'read_snippet', { kind: 'project', project });
  if (!project.snippets_enabled) throw new ForbiddenError();
  return project;
}

/** The snippet an update or delete addresses: readable, and the caller its author or a Maintainer (`admin_snippet`). */
async function editableSnippet(ctx: Ctx, input: SnippetRefInput): Promise<{ project: ProjectRow; snippet: SnippetRow }> {
  const user = requireUser(ctx);
  const project = await snippetsProject(ctx, input.id);
  const snippet = await readableSnippet(ctx, project, input.snippet_id);
  if (user.id !== snippet.author_id && !(await can(ctx, 'admin_snippet', { kind: 'project', project }))) throw new ForbiddenError();
  return { project, snippet };
}

function checkVisibility(visibility: string, project: ProjectRow): void {
  if (VISIBILITY_RANK[visibility]! > VISIBILITY_RANK[project.visibility]!) {
    throw new BadRequestError({ visibility_level: [`${visibility} is not allowed in a ${project.visibility} project.`] }, { raw: true });
  }
}

/** Entities for snippets of one project, with one query for their authors. */
async function presentSnippets(ctx: Ctx, project: ProjectRow, rows: SnippetRow[]): Promise<SnippetEntity[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((r) => r.author_id))];
  const authors = await usersByIds(ctx.db, ids);
  return rows.map((r) => toSnippetEntity(r, project, authors.get(r.author_id)!, ctx.urls));
}

async function presentSnippet(ctx: Ctx, project: ProjectRow, row: SnippetRow): Promise<SnippetEntity> {
  return (await presentSnippets(ctx, project, [row]))[0]!;
}

/** GET /projects/:id/snippets: the snippets the caller may read, newest first. */
export async function listSnippets(ctx: Ctx, input: ListSnippetsInput): Promise<Page<SnippetEntity>> {
  const project = await snippetsProject(ctx, input.id);
  const visibilities = await readableSnippetVisibilities(ctx, project);
  return paginate(ctx.db, selectProjectSnippets(ctx.db, project.id, visibilities), input, (rows) => presentSnippets(ctx, project, rows));
}

/** GET /projects/:id/snippets/:snippet_id */
export async function getSnippet(ctx: Ctx, input: SnippetRefInput): Promise<SnippetEntity> {
  const project = await snippetsProject(ctx, input.id);
  return presentSnippet(ctx, project, await readableSnippet(ctx, project, input.snippet_id));
}

/** GET /projects/:id/snippets/:snippet_id/raw: the file's content. */
export async function getSnippetContent(ctx: Ctx, input: SnippetRefInput): Promise<{ fileName: string; content: string }> {
  const project = await snippetsProject(ctx, input.id);
  const snippet = await readableSnippet(ctx, project, input.snippet_id);
  return { fileName: snippet.file_name, content: snippet.content };
}

/** One file per snippet: `content` + `file_name`, or `files` with one element. */
function fileOf(input: CreateSnippetInput): { file_name: string; content: string } {
  if (input.files) {
    if (input.files.length !== 1) throw new BadRequestError('Only snippets with one file are supported');
    return { file_name: input.files[0]!.file_path, content: input.files[0]!.content };
  }
  // Grape's `given :content do requires :file_name end`
  if (input.file_name === undefined) throw new ValidationError([{ field: 'file_name', message: 'is missing' }]);
  return { file_name: input.file_name || DEFAULT_FILE_NAME, content: input.content! };
}

/** POST /projects/:id/snippets (Reporter). Visibility may not exceed the project's. */
export async function createSnippet(ctx: Ctx, input: CreateSnippetInput): Promise<SnippetEntity> {
  const user = requireUser(ctx);
  const project = await snippetsProject(ctx, input.id);
  const file = fileOf(input);
  await authorize(ctx, 'create_snippet', { kind: 'project', project });
  checkVisibility(input.visibility, project);
  const now = nowIso(ctx);
  const row = await insertSnippet(ctx.db, {
    project_id: project.id,
    title: input.title,
    description: input.description ?? null,
    visibility: input.visibility,
    ...file,
    author_id: user.id,
    created_at: now,
    updated_at: now,
  });
  return presentSnippet(ctx, project, row);
}

/** The file change asked by `files` (one action on the snippet's one file). */
function fileChange(snippet: SnippetRow, files: NonNullable<UpdateSnippetInput['files']>): { file_name?: string; content?: string } {
  if (files.length !== 1) throw new BadRequestError('Only snippets with one file are supported');
  const f = files[0]!;
  switch (f.action) {
    case 'update':
      if (f.file_path !== undefined && f.file_path !== snippet.file_name) throw new BadRequestError('Snippet actions have invalid data');
      return f.content === undefined ? {} : { content: f.content };
    case 'move':
      if (!f.file_path || (f.previous_path !== undefined && f.previous_path !== snippet.file_name)) {
        throw new BadRequestError('Snippet actions have invalid data');
      }
      return { file_name: f.file_path, ...(f.content !== undefined && { content: f.content }) };
    default:
      // create adds a second file; delete removes the only one
      throw new BadRequestError('Only snippets with one file are supported');
  }
}

/** PUT /projects/:id/snippets/:snippet_id: the author or a Maintainer. */
export async function updateSnippet(ctx: Ctx, input: UpdateSnippetInput): Promise<SnippetEntity> {
  const { project, snippet } = await editableSnippet(ctx, input);
  if (input.visibility !== undefined) checkVisibility(input.visibility, project);
  const file = input.files ? fileChange(snippet, input.files) : {};
  const row = await updateSnippetById(ctx.db, snippet.id, {
    ...(input.title !== undefined && { title: input.title }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.visibility !== undefined && { visibility: input.visibility }),
    ...(input.file_name !== undefined && { file_name: input.file_name || snippet.file_name }),
    ...(input.content !== undefined && { content: input.content }),
    ...file,
    updated_at: nowIso(ctx),
  });
  return presentSnippet(ctx, project, row);
}

/** DELETE /projects/:id/snippets/:snippet_id: the author or a Maintainer; its notes go with it. */
export async function deleteSnippet(ctx: Ctx, input: SnippetRefInput): Promise<void> {
  const { snippet } = await editableSnippet(ctx, input);
  await ctx.db.transaction().execute(async (trx) => {
    await deleteNoteableNotes(trx, 'Snippet', [snippet.id]);
    await deleteAwardEmojiOf(trx, 'Snippet', [snippet.id]);
    await deleteSnippetById(trx, snippet.id);
  });
}
