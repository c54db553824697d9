import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { isPostgres } from '../../storage/migrations/helpers.js';
import { sqliteOfTransaction } from '../../storage/dialect.js';
import { preparedQuery } from '../../storage/prepared.js';
import type { IssueRow, IssueUpdate, NewIssueRow } from './issue.table.js';

/** Every column an issue is created with: the insert is compiled once (storage/prepared.ts). */
const NEW_ISSUE_COLUMNS = [
  'project_id', 'iid', 'title', 'description', 'state', 'issue_type', 'confidential', 'discussion_locked',
  'author_id', 'milestone_id', 'due_date', 'weight', 'closed_at', 'closed_by_id', 'created_at', 'updated_at',
] as const satisfies readonly (keyof NewIssueRow)[];

export type NewIssue = Required<Pick<NewIssueRow, (typeof NEW_ISSUE_COLUMNS)[number]>>;

/**
 * A new issue with the project's next iid (gapless: the iid's row stays locked until the
 * transaction ends), counted in `open_issues_count` when it counts there. On PostgreSQL one
 * statement; on SQLite three, in process, where a statement costs microseconds.
 */
export async function insertNewIssue(trx: Kysely<Database>, values: Omit<NewIssue, 'iid'>): Promise<IssueRow> {
  if (isPostgres(trx)) return (await insertIssuesPg(insertIssuesInTransactionPg, trx, [values]))[0]!;
  return (await insertIssuesSqlite(trx, [values]))[0]!;
}

/** SQLite: the project's iid moved on by `n`, its new value (compiled once; storage/prepared.ts). */
const bumpIssueIidSqlite = preparedQuery((db: Kysely<Database>, scope: string, n: number) =>
  db
    .insertInto('internal_ids')
    .values({ usage: 'issues', scope, last_value: n })
    .onConflict((oc) => oc.columns(['usage', 'scope']).doUpdateSet((eb) => ({ last_value: eb('internal_ids.last_value', '+', eb.ref('excluded.last_value')) })))
    .returning('last_value'),
);

/** The text of a SQLite insert of `n` new issues returning their rows, by `n`. */
const issuesInsertSqlite = new Map<number, string>();

/**
 * SQLite, in a transaction: new issues of one project with the next iids in their order, and
 * the open-issue counter raised by those that count there; their rows in iid order. Three
 * statements whatever their number (the issues of one turn share them: IssueBatch).
 */
async function insertIssuesSqlite(trx: Kysely<Database>, issues: readonly Omit<NewIssue, 'iid'>[]): Promise<IssueRow[]> {
  const sqlite = sqliteOfTransaction(trx);
  if (!sqlite) throw new Error('new issues on SQLite are inserted in a transaction');
  const projectId = issues[0]!.project_id;
  const [bumped] = await bumpIssueIidSqlite(trx, `project:${projectId}`, issues.length);
  const first = Number(bumped!.last_value) - issues.length + 1;
  let text = issuesInsertSqlite.get(issues.length);
  if (text === undefined) {
    const row = `(${NEW_ISSUE_COLUMNS.map(() => '?').join(', ')})`;
    text = `insert into issues (${NEW_ISSUE_COLUMNS.join(', ')}) values ${Array.from({ length: issues.length }, () => row).join(', ')} returning *`;
    issuesInsertSqlite.set(issues.length, text);
  }
  const parameters: unknown[] = [];
  issues.forEach((values, i) => {
    for (const column of NEW_ISSUE_COLUMNS) parameters.push(column === 'iid' ? first + i : values[column]);
  });
  // The statement marks its write for the read cache as every one prepared on the connection (storage/dialect.ts).
  const rows = (sqlite.prepare(text).all(parameters) as IssueRow[]).sort((a, b) => a.iid - b.iid);
  const counted = issues.filter(countsAsOpen).length;
  if (counted > 0) await addOpenIssues(trx, projectId, counted);
  return rows;
}

/**
 * A new issue as a write by itself (nothing else goes in its transaction), shared with the
 * project's other new issues that arrive meanwhile (IssueBatch): on PostgreSQL the statement of
 * `insertNewIssue`, committed in the same round trip, so the project's iid and counter rows
 * are locked for its execution only; on SQLite the three statements of `insertNewIssue` in a
 * transaction. Given a transaction (a seed's), part of it.
 */
export async function insertNewIssueAlone(db: Kysely<Database>, values: Omit<NewIssue, 'iid'>): Promise<IssueRow> {
  if (db.isTransaction) return insertNewIssue(db, values);
  return issueBatchOf(db, values.project_id).add(values);
}

/** The columns of new issues as PostgreSQL arrays (unnest), in NEW_ISSUE_COLUMNS order without `project_id` and `iid`. */
const ARRAY_COLUMNS = NEW_ISSUE_COLUMNS.filter((c) => c !== 'project_id' && c !== 'iid');
const PG_TYPES: Record<(typeof ARRAY_COLUMNS)[number], 'text' | 'integer'> = {
  title: 'text', description: 'text', state: 'text', issue_type: 'text', confidential: 'integer', discussion_locked: 'integer',
  author_id: 'integer', milestone_id: 'integer', due_date: 'text', weight: 'integer', closed_at: 'text', closed_by_id: 'integer',
  created_at: 'text', updated_at: 'text',
};

/**
 * PostgreSQL: new issues of one project in one statement (data-modifying CTEs, one round trip):
 * the project's iid moved on by their number, each row given the next in its order
 * (ordinality), and `open_issues_count` raised by those that count there (not touched when none
 * does). Arguments: the iid scope, the project, how many, how many count as open, then one array
 * per ARRAY_COLUMNS column; the text is the same for any number of rows. `commitsAlone`: the
 * statement is a whole transaction, committed in its round trip (storage/prepared.ts).
 */
const issuesStatementPg = (commitsAlone: boolean) =>
  preparedQuery(
    (db: Kysely<Database>, scope: unknown, projectId: unknown, n: unknown, counted: unknown, ...columns: unknown[]) => ({
      compile: () =>
        sql<IssueRow>`with next_iid as (
            insert into internal_ids (usage, scope, last_value) values ('issues', ${scope}, ${n}::integer)
            on conflict (usage, scope) do update set last_value = internal_ids.last_value + ${n}::integer
            returning last_value
          ), counted as (
            insert into project_counters (project_id, open_issues_count) select ${projectId}::integer, ${counted}::integer where ${counted}::integer > 0
            on conflict (project_id) do update set open_issues_count = project_counters.open_issues_count + ${counted}::integer
          )
          insert into issues (project_id, iid, ${sql.join(ARRAY_COLUMNS.map((c) => sql.ref(c)))})
          select ${projectId}::integer, (select last_value from next_iid) - ${n}::integer + r.ord, ${sql.join(ARRAY_COLUMNS.map((c) => sql.ref(`r.${c}`)))}
          from unnest(${sql.join(columns.map((array, i) => sql`${array}::${sql.raw(PG_TYPES[ARRAY_COLUMNS[i]!])}[]`))})
            with ordinality as r(${sql.join(ARRAY_COLUMNS.map((c) => sql.ref(c)))}, ord)
          returning *`.compile(db),
    }),
    { commitsAlone },
  );
const insertIssuesInTransactionPg = issuesStatementPg(false);
const insertIssuesAlonePg = issuesStatementPg(true);

/** New issues of one project (`issuesStatementPg`), their rows in iid order, which is theirs. */
async function insertIssuesPg(statement: typeof insertIssuesAlonePg, db: Kysely<Database>, issues: readonly Omit<NewIssue, 'iid'>[]): Promise<IssueRow[]> {
  const projectId = issues[0]!.project_id;
  const rows = await statement(db, `project:${projectId}`, projectId, issues.length, issues.filter(countsAsOpen).length, ...ARRAY_COLUMNS.map((c) => issues.map((v) => v[c])));
  return rows.sort((a, b) => a.iid - b.iid);
}

/** New issues of one project written by themselves (a transaction of their own). */
async function insertIssuesAlone(db: Kysely<Database>, issues: readonly Omit<NewIssue, 'iid'>[]): Promise<IssueRow[]> {
  if (isPostgres(db)) return insertIssuesPg(insertIssuesAlonePg, db, issues);
  return db.transaction().execute((trx) => insertIssuesSqlite(trx, issues));
}

/** At most this many issues go in one batch statement (14 arrays of this length). */
const ISSUE_BATCH_MAX = 100;

interface PendingIssue {
  values: Omit<NewIssue, 'iid'>;
  resolve(row: IssueRow): void;
  reject(err: unknown): void;
}

/**
 * New issues of one project, created alone (createIssue's common case). While a statement of
 * the project's is on its way, the next ones wait and then go together in one
 * (`issuesStatementPg`; on SQLite `insertIssuesSqlite`'s three): writers that would each take
 * the iid row's lock, and a commit, in turn (16 bots filing into one project) share them, and
 * on SQLite each statement's fixed cost and each transaction's savepoint are paid once per
 * batch. The first waits until the end of the event loop's turn, so the requests of one turn
 * go together. Iids stay gapless and in the order of arrival: one statement takes them all, or
 * none. If a batch fails, its issues are tried one by one, so each request gets its own answer
 * (one bad row does not fail the rest).
 */
class IssueBatch {
  private readonly waiting: PendingIssue[] = [];
  private busy = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly done: () => void,
  ) {}

  add(values: Omit<NewIssue, 'iid'>): Promise<IssueRow> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ values, resolve, reject });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.send());
      }
    });
  }

  private async send(): Promise<void> {
    let batch: PendingIssue[] = [];
    try {
      while (this.waiting.length) {
        batch = this.waiting.splice(0, ISSUE_BATCH_MAX);
        let rows: IssueRow[];
        try {
          rows = await insertIssuesAlone(this.db, batch.map((p) => p.values));
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else await Promise.all(batch.map((p) => insertIssuesAlone(this.db, [p.values]).then((one) => p.resolve(one[0]!), p.reject)));
          continue;
        }
        if (rows.length !== batch.length) throw new Error(`a batch of ${batch.length} new issues inserted ${rows.length}`);
        batch.forEach((p, i) => p.resolve(rows[i]!));
      }
    } catch (err) {
      // Not expected (a statement's failure is answered above): fail the callers rather than leave them waiting.
      for (const p of [...batch, ...this.waiting.splice(0)]) p.reject(err);
    } finally {
      this.busy = false;
      this.done();
    }
  }
}

const issueBatches = new WeakMap<Kysely<Database>, Map<number, IssueBatch>>();

/** The batch of new issues of a project on a database (kept while it has work; see IssueBatch). */
function issueBatchOf(db: Kysely<Database>, projectId: number): IssueBatch {
  let byProject = issueBatches.get(db);
  if (!byProject) issueBatches.set(db, (byProject = new Map()));
  let batch = byProject.get(projectId);
  if (!batch) {
    const projects = byProject;
    byProject.set(projectId, (batch = new IssueBatch(db, () => projects.delete(projectId))));
  }
  return batch;
}


/**
 * The issue as the transaction's later writes will find it: on PostgreSQL the row is locked
 * (FOR UPDATE), so two concurrent writes to one issue see each other's result; SQLite runs
 * one write transaction at a time already. Undefined when the issue is gone.
 */
export async function lockIssueById(trx: Kysely<Database>, id: number): Promise<IssueRow | undefined> {
  const q = trx.selectFrom('issues').selectAll().where('id', '=', id);
  return (isPostgres(trx) ? q.forUpdate() : q).executeTakeFirst();
}

/** Whether an issue counts in its project's `open_issues_count` (GitLab's public count: open, not confidential). */
function countsAsOpen(row: Pick<IssueRow, 'state' | 'confidential'> | null | undefined): boolean {
  return row != null && row.state === 'opened' && row.confidential === 0;
}

/**
 * Keeps the project's `open_issues_count` (`project_counters`) right across one issue write,
 * given the issue before and after it (null when created or deleted). An increment, never a
 * recount: concurrent writes to different issues of one project add up (the counter row is
 * updated in place, which locks it).
 */
export async function countOpenIssueChange(
  trx: Kysely<Database>,
  before: Pick<IssueRow, 'project_id' | 'state' | 'confidential'> | null | undefined,
  after: Pick<IssueRow, 'project_id' | 'state' | 'confidential'> | null | undefined,
): Promise<void> {
  const deltas = new Map<number, number>();
  if (countsAsOpen(before)) deltas.set(before!.project_id, -1);
  if (countsAsOpen(after)) deltas.set(after!.project_id, (deltas.get(after!.project_id) ?? 0) + 1);
  for (const [projectId, delta] of deltas) if (delta !== 0) await addOpenIssues(trx, projectId, delta);
}

const addOpenIssues = preparedQuery((db, projectId: number, delta: number) =>
  db
    .insertInto('project_counters')
    .values({ project_id: projectId, open_issues_count: delta })
    .onConflict((oc) => oc.column('project_id').doUpdateSet((eb) => ({ open_issues_count: eb('project_counters.open_issues_count', '+', delta) }))),
);

/** Sets every project's `open_issues_count` from its issues (after a snapshot restore); writes only the rows that differ. */
export async function recountOpenIssues(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`delete from project_counters where open_issues_count <> (${openIssuesOf('project_counters.project_id')})`.execute(trx);
    await sql`insert into project_counters (project_id, open_issues_count)
      select p.id, (${openIssuesOf('p.id')}) from projects p
      where not exists (select 1 from project_counters c where c.project_id = p.id) and (${openIssuesOf('p.id')}) > 0`.execute(trx);
  });
}

const openIssuesOf = (projectId: string) => sql`select count(*) from issues i where i.project_id = ${sql.ref(projectId)} and i.state = 'opened' and i.confidential = 0`;

export async function selectIssueById(db: Kysely<Database>, id: number): Promise<IssueRow> {
  return db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function updateIssueById(trx: Kysely<Database>, id: number, values: IssueUpdate): Promise<void> {
  await trx.updateTable('issues').set(values).where('id', '=', id).execute();
}

/** Closes an open issue; false when it was not open (nothing changed). */
export async function closeIssueById(trx: Kysely<Database>, id: number, userId: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('issues')
    .set({ state: 'closed', closed_at: now, closed_by_id: userId, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'opened')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Reopens a closed issue; false when it was not closed. */
export async function reopenIssueById(trx: Kysely<Database>, id: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('issues')
    .set({ state: 'opened', closed_at: null, closed_by_id: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'closed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function selectAssigneeIds(db: Kysely<Database>, issueId: number): Promise<number[]> {
  const rows = await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute();
  return rows.map((r) => r.user_id);
}

/** Makes the issue's assignees exactly `userIds`; true when that changed anything. */
export async function replaceAssignees(trx: Kysely<Database>, issueId: number, userIds: readonly number[]): Promise<boolean> {
  const current = new Set(await selectAssigneeIds(trx, issueId));
  const wanted = new Set(userIds);
  const removed = [...current].filter((id) => !wanted.has(id));
  const added = [...wanted].filter((id) => !current.has(id));
  if (removed.length) await trx.deleteFrom('issue_assignees').where('issue_id', '=', issueId).where('user_id', 'in', removed).execute();
  if (added.length) await trx.insertInto('issue_assignees').values(added.map((user_id) => ({ issue_id: issueId, user_id }))).execute();
  return removed.length > 0 || added.length > 0;
}

/** `issue_id → user ids` for a page of issues. */
export async function selectAssigneesOfIssues(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (issueIds.length === 0) return out;
  const rows = await db.selectFrom('issue_assignees').selectAll().where('issue_id', 'in', issueIds).orderBy('user_id').execute();
  for (const r of rows) {
    const list = out.get(r.issue_id);
    if (list) list.push(r.user_id);
    else out.set(r.issue_id, [r.user_id]);
  }
  return out;
}

/**
 * Deletes the issue row; assignees and state events go with it by cascade. Notes, reactions
 * and label links have no foreign key: their domains delete them first (see delete-issue.ts).
 */
export async function deleteIssueById(trx: Kysely<Database>, issueId: number): Promise<void> {
  await trx.deleteFrom('issues').where('id', '=', issueId).execute();
}

/** Each issue with a milestone, and that milestone's dates: for another domain to join and aggregate. */
export function selectIssueMilestoneDates(db: Kysely<Database>) {
  return db.selectFrom('issues as i').innerJoin('milestones as m', 'm.id', 'i.milestone_id').select(['i.id as issue_id', 'm.start_date', 'm.due_date']);
}
