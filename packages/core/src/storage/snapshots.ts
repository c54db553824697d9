/**
 * Named snapshots of the whole state (every table but the migration bookkeeping and the secret
 * key ids, and the blob folder), restore, and wipe. For test suites: a snapshot of a small state is taken
 * and restored in a few milliseconds.
 *
 * Tables are enumerated from the database at each call, so tables added by later
 * migrations are covered without changes here.
 *
 * SQLite: the snapshots live in an attached database `forgelet_snapshots` (in memory for an
 * in-memory database, `<file>-snapshots` beside a database file), one table per snapshot and
 * table (`s<id>__<table>`, copied with CREATE TABLE … AS SELECT). A restore holds the only
 * connection, turns foreign-key enforcement off, and in one transaction empties every table
 * and copies the snapshot back (plus `sqlite_sequence`, so new ids continue as they would
 * have).
 *
 * PostgreSQL: a template database cannot be copied while connections are open, so each
 * snapshot is a schema `forgelet_snap_<id>` holding `CREATE TABLE … AS SELECT` copies, taken
 * in one REPEATABLE READ transaction, with every sequence's position. A restore is one
 * transaction: TRUNCATE of every table, INSERT … SELECT of the non-empty ones in
 * foreign-key order, and setval of every sequence to its position at snapshot time.
 *
 * Blobs: the filesystem store writes each blob to a temporary file and renames it into place
 * and never changes a file afterwards, so a snapshot of the folder is a tree of hard links
 * (copies where links are impossible) under `<blob root>.snapshots/<id>`. The PostgreSQL store
 * keeps blobs in tables, which the snapshot copies like any other. A store elsewhere (an S3
 * bucket) is refused: snapshot, restore and wipe answer 422 and change nothing.
 *
 * Not covered: state outside the database and the blob folder (the clock, the tier, the
 * server's injected faults). A restore does not wait for HTTP requests in flight; callers
 * restore between test steps (the test-harness domain also pauses the job queue).
 */
import type { GitRepositories } from './git.js';
import { copyFile, link, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { ConflictError, NotFoundError, UnprocessableError } from '../kernel/errors.js';
import type { BlobStore } from './blobs.js';
import type { Database } from './database.js';
import type { DialectName } from './dialect.js';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from './migrations/sqlite-schema.js';

export interface SnapshotInfo {
  name: string;
  created_at: string;
  /** Tables copied, and their rows in all. */
  tables: number;
  rows: number;
  /** Blob files copied (hard-linked). */
  blobs: number;
}

interface TableCopy {
  name: string;
  columns: string[];
  rows: number;
}

interface SequenceState {
  name: string;
  last_value: number;
  is_called: boolean;
}

interface CatalogRow {
  id: number;
  name: string;
  created_at: string;
  tables: string; // JSON TableCopy[]
  sequences: string; // JSON SequenceState[]
  blobs: number;
}

/**
 * Kysely bookkeeping of the migrator, and the ids of the instance's secret keys (they describe
 * the keys the processes hold, not the state under test): never copied, never emptied.
 */
const SKIPPED_TABLES = new Set([MIGRATION_TABLE, MIGRATION_LOCK_TABLE, 'secret_keys']);
/** PostgreSQL restores empty the tables with DELETE up to this many rows in all, else TRUNCATE. */
const TRUNCATE_ABOVE_ROWS = 2000;
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;
const lit = (text: string) => `'${text.replace(/'/g, "''")}'`;

export interface SnapshotStoreOptions {
  db: Kysely<Database>;
  dialect: DialectName;
  blobs: BlobStore;
  /** Where blob snapshots go; default `<blob root>.snapshots`. */
  blobSnapshotDir?: string | null;
  /** Projects' git repositories: snapshots hold them too, under `<repositories root>.snapshots/<id>`. */
  git?: GitRepositories;
}

export class SnapshotStore {
  private readonly db: Kysely<any>;
  private ready: Promise<void> | null = null;
  private schema = 'public';
  private readonly blobDir: string | null;

  constructor(private readonly options: SnapshotStoreOptions) {
    this.db = options.db as Kysely<any>;
    const root = options.blobs.root;
    this.blobDir = options.blobSnapshotDir ?? (root ? `${root}.snapshots` : null);
  }

  // ------------------------------------------------------------------ catalog

  private init(): Promise<void> {
    this.ready ??= this.setUp().catch((err) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private async setUp(): Promise<void> {
    const columns = 'id integer primary key, name text not null unique, created_at text not null, tables text not null, sequences text not null, blobs integer not null';
    if (this.options.dialect === 'sqlite') {
      const attached = await sql<{ name: string }>`pragma database_list`.execute(this.db);
      if (!attached.rows.some((r) => r.name === 'forgelet_snapshots')) {
        const main = (attached.rows as { name: string; file: string }[]).find((r) => r.name === 'main')?.file ?? '';
        const file = main ? `${main}-snapshots` : ':memory:';
        await sql`attach database ${file} as forgelet_snapshots`.execute(this.db);
        // Copies for tests: no fsync; WAL keeps the file whole if the process dies.
        if (file !== ':memory:') await sql`pragma forgelet_snapshots.journal_mode = wal`.execute(this.db);
        await sql`pragma forgelet_snapshots.synchronous = off`.execute(this.db);
      }
      await sql.raw(`create table if not exists forgelet_snapshots.catalog (${columns})`).execute(this.db);
      return;
    }
    const current = await sql<{ s: string }>`select current_schema() as s`.execute(this.db);
    this.schema = current.rows[0]!.s;
    await sql.raw(`create schema if not exists forgelet_snapshots; create table if not exists forgelet_snapshots.catalog (${columns.replace('id integer primary key', 'id serial primary key')})`).execute(this.db);
  }

  private catalogTable(): string {
    return 'forgelet_snapshots.catalog';
  }

  private async find(name: string): Promise<CatalogRow | null> {
    const r = await sql<CatalogRow>`select * from ${sql.raw(this.catalogTable())} where name = ${name}`.execute(this.db);
    return r.rows[0] ?? null;
  }

  private info(row: CatalogRow): SnapshotInfo {
    const tables = JSON.parse(row.tables) as TableCopy[];
    return {
      name: row.name,
      created_at: row.created_at,
      tables: tables.length,
      rows: tables.reduce((n, t) => n + t.rows, 0),
      blobs: Number(row.blobs),
    };
  }

  async list(): Promise<SnapshotInfo[]> {
    await this.init();
    const r = await sql<CatalogRow>`select * from ${sql.raw(this.catalogTable())} order by id`.execute(this.db);
    return r.rows.map((row) => this.info(row));
  }

  async get(name: string): Promise<SnapshotInfo> {
    await this.init();
    const row = await this.find(name);
    if (!row) throw new NotFoundError('Snapshot');
    return this.info(row);
  }

  // ------------------------------------------------------------------ schema facts

  /** The application's tables, from the database. */
  async tables(): Promise<string[]> {
    await this.init();
    const rows =
      this.options.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from main.sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(this.db)).rows
        : (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = ${this.schema} order by tablename`.execute(this.db)).rows;
    return rows.map((r) => r.name).filter((n) => !SKIPPED_TABLES.has(n));
  }

  private async columnsOf(db: Kysely<any>, tables: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(tables.map((t) => [t, []]));
    if (this.options.dialect === 'sqlite') {
      const r = await sql<{ t: string; c: string }>`
        select m.name as t, c.name as c from main.sqlite_master m join pragma_table_info(m.name, 'main') c
        where m.type = 'table' order by m.name, c.cid`.execute(db);
      for (const row of r.rows) out.get(row.t)?.push(row.c);
      return out;
    }
    const r = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = ${this.schema} order by table_name, ordinal_position`.execute(db);
    for (const row of r.rows) out.get(row.table_name)?.push(row.column_name);
    return out;
  }

  private async rowCounts(db: Kysely<any>, from: (table: string) => string, tables: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // One statement (a UNION ALL of counts), in chunks to stay under SQLite's compound limit.
    for (let i = 0; i < tables.length; i += 200) {
      const chunk = tables.slice(i, i + 200);
      const text = chunk.map((t) => `select ${lit(t)} as t, count(*) as n from ${from(t)}`).join(' union all ');
      const r = await sql.raw<{ t: string; n: number | string }>(text).execute(db);
      for (const row of r.rows) out.set(row.t, Number(row.n));
    }
    return out;
  }

  private foreignKeys: Promise<{ child: string; parent: string }[]> | null = null;

  /** PostgreSQL: tables ordered so that a referenced table comes before those referencing it. */
  private async foreignKeyOrder(tables: string[]): Promise<string[]> {
    // The schema only changes through migrations, which run before the forge starts.
    this.foreignKeys ??= sql<{ child: string; parent: string }>`
      select c.relname as child, p.relname as parent
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class p on p.oid = k.confrelid
      join pg_namespace n on n.oid = c.relnamespace
      where k.contype = 'f' and n.nspname = ${this.schema}`
      .execute(this.db)
      .then((r) => r.rows)
      .catch((err) => {
        this.foreignKeys = null;
        throw err;
      });
    const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set()]));
    for (const { child, parent } of await this.foreignKeys) if (child !== parent) parents.get(child)?.add(parent);
    const ordered: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (t: string, path: string[]) => {
      const s = state.get(t);
      if (s === 'done') return;
      if (s === 'visiting') throw new Error(`snapshots: a foreign-key cycle between tables ${[...path, t].join(' → ')}`);
      state.set(t, 'visiting');
      for (const p of parents.get(t) ?? []) if (parents.has(p)) visit(p, [...path, t]);
      state.set(t, 'done');
      ordered.push(t);
    };
    for (const t of tables) visit(t, []);
    return ordered;
  }

  private sequenceNames: Promise<string[]> | null = null;

  /** Like the foreign keys, the sequences only change with migrations. */
  private listSequenceNames(): Promise<string[]> {
    this.sequenceNames ??= sql<{ name: string }>`select sequencename as name from pg_sequences where schemaname = ${this.schema} order by sequencename`
      .execute(this.db)
      .then((r) => r.rows.map((row) => row.name))
      .catch((err) => {
        this.sequenceNames = null;
        throw err;
      });
    return this.sequenceNames;
  }

  private async sequences(db: Kysely<any>): Promise<SequenceState[]> {
    const names = await this.listSequenceNames();
    if (names.length === 0) return [];
    const text = names.map((n) => `select ${lit(n)} as name, last_value, is_called from ${q(this.schema)}.${q(n)}`).join(' union all ');
    const r = await sql.raw<{ name: string; last_value: number | string; is_called: boolean }>(text).execute(db);
    return r.rows.map((row) => ({ name: row.name, last_value: Number(row.last_value), is_called: row.is_called }));
  }

  // ------------------------------------------------------------------ create

  async create(name: string, createdAt: string): Promise<SnapshotInfo> {
    this.checkBlobStore();
    await this.init();
    if (await this.find(name)) throw new ConflictError(`Snapshot ${name} already exists`);
    const tables = await this.tables();
    const row = this.options.dialect === 'sqlite' ? await this.createSqlite(name, createdAt, tables) : await this.createPostgres(name, createdAt, tables);
    const blobs = await this.copyBlobsOut(row.id);
    await sql`update ${sql.raw(this.catalogTable())} set blobs = ${blobs} where id = ${row.id}`.execute(this.db);
    return this.info({ ...row, blobs });
  }

  private async createSqlite(name: string, createdAt: string, tables: string[]): Promise<CatalogRow> {
    return this.db.connection().execute(async (conn) => {
      const run = (text: string) => conn.executeQuery(CompiledQuery.raw(text));
      await run('begin');
      try {
        const id = await this.nextSqliteId(conn);
        const columns = await this.columnsOf(conn, tables);
        const counts = await this.rowCounts(conn, (t) => `main.${q(t)}`, tables);
        // Empty tables need no copy: a restore just empties them.
        for (const t of tables) {
          if (counts.get(t)) await run(`create table forgelet_snapshots.${q(`s${id}__${t}`)} as select * from main.${q(t)}`);
        }
        const hasSequence = (await run(`select 1 from main.sqlite_master where name = 'sqlite_sequence'`)).rows.length > 0;
        if (hasSequence) await run(`create table forgelet_snapshots.${q(`s${id}__sqlite_sequence`)} as select name, seq from main.sqlite_sequence`);
        const copies: TableCopy[] = tables.map((t) => ({ name: t, columns: columns.get(t)!, rows: counts.get(t) ?? 0 }));
        const seq = hasSequence ? [{ name: 'sqlite_sequence', last_value: 0, is_called: true }] : [];
        const row: CatalogRow = { id, name, created_at: createdAt, tables: JSON.stringify(copies), sequences: JSON.stringify(seq), blobs: 0 };
        await sql`insert into forgelet_snapshots.catalog (id, name, created_at, tables, sequences, blobs)
          values (${row.id}, ${row.name}, ${row.created_at}, ${row.tables}, ${row.sequences}, 0)`.execute(conn);
        await run('commit');
        return row;
      } catch (err) {
        await run('rollback').catch(() => {});
        throw err;
      }
    });
  }

  private async nextSqliteId(db: Kysely<any>): Promise<number> {
    const r = await sql<{ n: number | null }>`select max(id) as n from forgelet_snapshots.catalog`.execute(db);
    // Ids are never reused within a process, so a dropped snapshot's leftovers cannot collide.
    const next = Math.max(Number(r.rows[0]?.n ?? 0), this.lastSqliteId) + 1;
    this.lastSqliteId = next;
    return next;
  }
  private lastSqliteId = 0;

  private async createPostgres(name: string, createdAt: string, tables: string[]): Promise<CatalogRow> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const inserted = await sql<{ id: number }>`insert into forgelet_snapshots.catalog (name, created_at, tables, sequences, blobs)
          values (${name}, ${createdAt}, '[]', '[]', 0) returning id`.execute(trx);
        const id = inserted.rows[0]!.id;
        const schema = `forgelet_snap_${id}`;
        const columns = await this.columnsOf(trx, tables);
        const counts = await this.rowCounts(trx, (t) => `${q(this.schema)}.${q(t)}`, tables);
        const sequences = await this.sequences(trx);
        const statements = [`create schema ${q(schema)}`];
        // Empty tables need no copy: a restore just empties them.
        for (const t of tables) {
          if (counts.get(t)) statements.push(`create table ${q(schema)}.${q(t)} as select * from ${q(this.schema)}.${q(t)}`);
        }
        await sql.raw(statements.join(';\n')).execute(trx);
        const copies: TableCopy[] = tables.map((t) => ({ name: t, columns: columns.get(t)!, rows: counts.get(t) ?? 0 }));
        const row: CatalogRow = { id, name, created_at: createdAt, tables: JSON.stringify(copies), sequences: JSON.stringify(sequences), blobs: 0 };
        await sql`update forgelet_snapshots.catalog set tables = ${row.tables}, sequences = ${row.sequences} where id = ${id}`.execute(trx);
        return row;
      });
  }

  // ------------------------------------------------------------------ restore and wipe

  async restore(name: string): Promise<SnapshotInfo> {
    this.checkBlobStore();
    await this.init();
    const row = await this.find(name);
    if (!row) throw new NotFoundError('Snapshot');
    const copies = JSON.parse(row.tables) as TableCopy[];
    const current = await this.tables();
    const missing = copies.filter((c) => !current.includes(c.name)).map((c) => c.name);
    if (missing.length) throw new ConflictError(`Snapshot ${name} holds tables this schema no longer has: ${missing.join(', ')}`);
    if (this.options.dialect === 'sqlite') await this.restoreSqlite(row.id, current, copies, row.sequences !== '[]');
    else await this.restorePostgres(row.id, current, copies, JSON.parse(row.sequences) as SequenceState[]);
    await this.copyBlobsIn(row.id);
    return this.info(row);
  }

  /** Empties every table (ids start over) and the blob folder. */
  async wipe(): Promise<void> {
    this.checkBlobStore();
    await this.init();
    const current = await this.tables();
    if (this.options.dialect === 'sqlite') await this.restoreSqlite(null, current, [], false);
    else {
      const sequences = (await this.listSequenceNames()).map((name) => ({ name, last_value: 1, is_called: false }));
      await this.restorePostgres(null, current, [], sequences);
    }
    await this.clearBlobs();
    await this.clearRepositories();
  }

  private async restoreSqlite(id: number | null, current: string[], copies: TableCopy[], withSequence: boolean): Promise<void> {
    await this.db.connection().execute(async (conn) => {
      const run = (text: string) => conn.executeQuery(CompiledQuery.raw(text));
      // Only outside a transaction does this pragma take effect.
      await run('pragma foreign_keys = off');
      try {
        await run('begin immediate');
        try {
          for (const t of current) await run(`delete from main.${q(t)}`);
          for (const c of copies) {
            if (c.rows === 0) continue;
            const cols = c.columns.map(q).join(', ');
            await run(`insert into main.${q(c.name)} (${cols}) select ${cols} from forgelet_snapshots.${q(`s${id}__${c.name}`)}`);
          }
          const hasSequence = (await run(`select 1 from main.sqlite_master where name = 'sqlite_sequence'`)).rows.length > 0;
          if (hasSequence) {
            await run('delete from main.sqlite_sequence');
            if (withSequence) await run(`insert into main.sqlite_sequence (name, seq) select name, seq from forgelet_snapshots.${q(`s${id}__sqlite_sequence`)}`);
          }
          await run('commit');
        } catch (err) {
          await run('rollback').catch(() => {});
          throw err;
        }
      } finally {
        await run('pragma foreign_keys = on');
      }
    });
  }

  private async restorePostgres(id: number | null, current: string[], copies: TableCopy[], sequences: SequenceState[]): Promise<void> {
    const order = await this.foreignKeyOrder(copies.filter((c) => c.rows > 0).map((c) => c.name));
    const byName = new Map(copies.map((c) => [c.name, c]));
    const statements: string[] = [];
    // Emptying: TRUNCATE costs about a millisecond per table whatever it holds, DELETE a little
    // per row (and per referencing row it must check). A small state is deleted, table by
    // table, those referencing first (an empty table costs next to nothing); a larger one is
    // truncated at once.
    const counts = await this.rowCounts(this.db, (t) => `${q(this.schema)}.${q(t)}`, current);
    const rows = current.reduce((n, t) => n + (counts.get(t) ?? 0), 0);
    if (rows > TRUNCATE_ABOVE_ROWS) statements.push(`truncate ${current.map((t) => `${q(this.schema)}.${q(t)}`).join(', ')}`);
    else for (const t of (await this.foreignKeyOrder(current)).reverse()) statements.push(`delete from ${q(this.schema)}.${q(t)}`);
    for (const t of order) {
      const cols = byName.get(t)!.columns.map(q).join(', ');
      statements.push(`insert into ${q(this.schema)}.${q(t)} (${cols}) select ${cols} from ${q(`forgelet_snap_${id}`)}.${q(t)}`);
    }
    const known = new Set(await this.listSequenceNames());
    const setvals = sequences
      .filter((s) => known.has(s.name))
      .map((s) => `setval(${lit(`${q(this.schema)}.${q(s.name)}`)}, ${Math.max(1, s.last_value)}, ${s.is_called})`);
    if (setvals.length) statements.push(`select ${setvals.join(', ')}`);
    // One transaction: everything is restored or nothing is.
    await this.db.transaction().execute((trx) => sql.raw(statements.join(';\n')).execute(trx));
  }

  // ------------------------------------------------------------------ delete

  async delete(name: string): Promise<void> {
    await this.init();
    const row = await this.find(name);
    if (!row) throw new NotFoundError('Snapshot');
    if (this.options.dialect === 'sqlite') {
      const copies = JSON.parse(row.tables) as TableCopy[];
      await this.db.connection().execute(async (conn) => {
        const run = (text: string) => conn.executeQuery(CompiledQuery.raw(text));
        await run('begin');
        try {
          for (const c of copies) await run(`drop table if exists forgelet_snapshots.${q(`s${row.id}__${c.name}`)}`);
          await run(`drop table if exists forgelet_snapshots.${q(`s${row.id}__sqlite_sequence`)}`);
          await sql`delete from forgelet_snapshots.catalog where id = ${row.id}`.execute(conn);
          await run('commit');
        } catch (err) {
          await run('rollback').catch(() => {});
          throw err;
        }
      });
    } else {
      await this.db.transaction().execute(async (trx) => {
        await sql.raw(`drop schema if exists ${q(`forgelet_snap_${row.id}`)} cascade`).execute(trx);
        await sql`delete from forgelet_snapshots.catalog where id = ${row.id}`.execute(trx);
      });
    }
    if (this.blobDir) await rm(join(this.blobDir, String(row.id)), { recursive: true, force: true });
    if (this.options.git) await rm(join(`${this.options.git.root}.snapshots`, String(row.id)), { recursive: true, force: true });
  }

  // ------------------------------------------------------------------ blobs

  /** Blobs a snapshot cannot copy (neither files nor rows of this database): refused before anything changes. */
  private checkBlobStore(): void {
    const blobs = this.options.blobs;
    if (blobs.root || blobs.inDatabase) return;
    throw new UnprocessableError(`Snapshots need the blobs on the filesystem or in the PostgreSQL database (--blob-url file:… or postgres); this server keeps them in ${blobs.description}`);
  }

  /** Hard-links (or copies) the blob tree into the snapshot's folder; returns the file count. */
  private async copyBlobsOut(id: number): Promise<number> {
    const git = this.options.git;
    if (git) {
      // Git replaces a ref or config file by renaming a new one over it and never rewrites an
      // object, so hard links keep the snapshot's files as they were.
      const target = join(`${git.root}.snapshots`, String(id));
      await rm(target, { recursive: true, force: true });
      await mkdir(target, { recursive: true });
      await linkTree(git.root, target);
    }
    const root = this.options.blobs.root;
    if (!root || !this.blobDir) return 0;
    const target = join(this.blobDir, String(id));
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true });
    return linkTree(root, target);
  }

  private async copyBlobsIn(id: number): Promise<void> {
    const git = this.options.git;
    if (git) {
      await this.clearRepositories();
      await linkTree(join(`${git.root}.snapshots`, String(id)), git.root);
    }
    const root = this.options.blobs.root;
    if (!root || !this.blobDir) return;
    await this.clearBlobs();
    await linkTree(join(this.blobDir, String(id)), root);
  }

  private async clearRepositories(): Promise<void> {
    const git = this.options.git;
    if (!git) return;
    const entries = await readdir(git.root).catch(() => [] as string[]);
    await Promise.all(entries.map((e) => rm(join(git.root, e), { recursive: true, force: true })));
    git.forget();
  }

  private async clearBlobs(): Promise<void> {
    const root = this.options.blobs.root;
    if (!root) return;
    const entries = await readdir(root).catch(() => [] as string[]);
    await Promise.all(entries.map((e) => rm(join(root, e), { recursive: true, force: true })));
  }
}

/** Mirrors the files under `from` into `to` by hard links (copies across devices). */
async function linkTree(from: string, to: string): Promise<number> {
  let count = 0;
  const entries = await readdir(from, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.name.startsWith('.tmp-')) continue; // a blob still being written
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) {
      await mkdir(dst, { recursive: true });
      count += await linkTree(src, dst);
    } else if (e.isFile()) {
      try {
        await link(src, dst);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw err;
        await copyFile(src, dst);
      }
      count++;
    }
  }
  return count;
}
