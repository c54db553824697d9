/**
 * Emoji reactions on issues, merge requests, snippets and their notes (GitLab's
 * `lib/api/award_emoji.rb`). Reading needs only the awardable to be readable; awarding a
 * signed-in user who can read it; removing the reaction's author or an admin.
 */
import { usersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { NotFoundError, PreconditionError, UnauthorizedError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page, type PageRequest } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { requireUser } from '../../access/policy.js';
import { Registry } from '../../kernel/hooks.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { toAwardEmojiEntity, type AwardEmojiEntity } from './award-emoji.entity.js';
import { deleteAwardEmojiById, insertAwardEmoji, selectAwardEmojiById, selectAwardEmojiOf, type AwardableKey } from './award-emoji.queries.js';
import type { AwardEmojiRow } from './award-emoji.table.js';
import { isValidEmojiName, normalizeEmojiName } from './emoji-names.js';
import { runAwardEmojiChanged } from './award-emoji-hooks.js';

/** The path segment of each awardable kind (and of the noteables whose notes take reactions). */
export type AwardableSegment = 'issues' | 'merge_requests' | 'snippets';

/** Where a reaction route points: `/projects/:id/<segment>/:ref[/notes/:note_id]`. */
export interface AwardableTarget {
  /** Project id or full path. */
  project: string;
  segment: AwardableSegment;
  /** iid of the issue or merge request, id of the snippet. */
  ref: number;
  /** Set on the routes for reactions on a note of the noteable. */
  noteId?: number;
}

export const ListAwardEmojiInput = params({ ...paginationParams });
export type ListAwardEmojiInput = InferShape<typeof ListAwardEmojiInput.shape>;

export const CreateAwardEmojiInput = params({ name: p.string().describe('Emoji name without colons (thumbsup)') });
export type CreateAwardEmojiInput = InferShape<typeof CreateAwardEmojiInput.shape>;

/**
 * Finds the awardable a route names, when the caller can read it (404 otherwise). The awardables
 * are the noteables and their notes, so the notes domain provides it through the wiring.
 */
export type AwardableFinder = (ctx: Ctx, target: AwardableTarget) => Promise<AwardableKey>;

const finders = new Registry<'awardables', AwardableFinder>('award emoji');

/** Hands award emoji the finder of its awardables (forge.ts). */
export function registerAwardableFinder(finder: AwardableFinder): void {
  finders.register('awardables', finder);
}

const findAwardable = (ctx: Ctx, target: AwardableTarget) => finders.get('awardables')(ctx, target);

/** ActiveRecord's `find` miss: GitLab answers `404 Not found`. */
const awardNotFound = () => new NotFoundError(null, { exact: '404 Not found' });

async function present(ctx: Ctx, rows: AwardEmojiRow[]): Promise<AwardEmojiEntity[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((r) => r.user_id))];
  const users = await usersByIds(ctx.db, ids);
  return rows.map((r) => toAwardEmojiEntity(r, users.get(r.user_id)!, ctx.urls));
}

/** GET …/award_emoji: oldest first. */
export async function listAwardEmoji(ctx: Ctx, target: AwardableTarget, page: PageRequest): Promise<Page<AwardEmojiEntity>> {
  const awardable = await findAwardable(ctx, target);
  return paginate(ctx.db, selectAwardEmojiOf(ctx.db, awardable), page, (rows) => present(ctx, rows));
}

/** GET …/award_emoji/:award_id */
export async function getAwardEmoji(ctx: Ctx, target: AwardableTarget, awardId: number): Promise<AwardEmojiEntity> {
  const awardable = await findAwardable(ctx, target);
  const row = await selectAwardEmojiById(ctx.db, awardable, awardId);
  if (!row) throw awardNotFound();
  return (await present(ctx, [row]))[0]!;
}

/** Rails' `Array#to_sentence`: `a`, `a and b`, `a, b, and c`. */
function toSentence(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/**
 * A refused award. GitLab's AddService returns the model's `errors.full_messages` joined by
 * `to_sentence`, and the API answers `not_found!("Award Emoji #{message}")`, whose helper
 * builds `404 <resource> Not Found`; so an unknown name reads
 * `404 Award Emoji Name is not a valid emoji name Not Found` and a second identical award
 * `404 Award Emoji Name has already been taken Not Found` (both 404).
 */
function refused(errors: string[]): NotFoundError {
  return new NotFoundError(`Award Emoji ${toSentence(errors)}`);
}

/** POST …/award_emoji `name`: 201 with the reaction. */
export async function awardEmoji(ctx: Ctx, target: AwardableTarget, input: CreateAwardEmojiInput): Promise<AwardEmojiEntity> {
  const user = requireUser(ctx);
  const awardable = await findAwardable(ctx, target);
  const name = normalizeEmojiName(input.name);
  // The model's validations in order: presence, then the emoji name validator.
  const errors: string[] = [];
  if (name.trim() === '') errors.push("Name can't be blank");
  if (!(await isValidEmojiName(name))) errors.push('Name is not a valid emoji name');
  if (errors.length) throw refused(errors);
  let row: AwardEmojiRow;
  try {
    row = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await insertAwardEmoji(trx, { name, user_id: user.id, ...awardable }, nowIso(ctx));
      await runAwardEmojiChanged(trx, { action: 'award', by: ctx, award: inserted });
      return inserted;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw refused(['Name has already been taken']);
    throw err;
  }
  return (await present(ctx, [row]))[0]!;
}

/**
 * DELETE …/award_emoji/:award_id: 204. GitLab answers `unauthorized!` (401) to anyone but
 * the reaction's author or an admin, and 412 when `If-Unmodified-Since` is older than the
 * reaction (`destroy_conditionally!`).
 */
export async function removeAwardEmoji(ctx: Ctx, target: AwardableTarget, awardId: number, options: { unmodifiedSince?: Date } = {}): Promise<void> {
  const user = requireUser(ctx);
  const awardable = await findAwardable(ctx, target);
  const row = await selectAwardEmojiById(ctx.db, awardable, awardId);
  if (!row) throw awardNotFound();
  if (row.user_id !== user.id && !ctx.actor.isAdmin) throw new UnauthorizedError();
  if (options.unmodifiedSince && new Date(row.updated_at).getTime() > options.unmodifiedSince.getTime()) throw new PreconditionError();
  await ctx.db.transaction().execute(async (trx) => {
    await deleteAwardEmojiById(trx, row.id);
    await runAwardEmojiChanged(trx, { action: 'revoke', by: ctx, award: row });
  });
}
