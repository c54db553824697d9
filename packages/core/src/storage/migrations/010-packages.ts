import { sql, type Kysely } from 'kysely';
import { isPostgres, withId } from './helpers.js';

/**
 * The package feed (NuGet, the spec's `pkgfeed`): package versions, their files, the symbol
 * files inside symbol packages, and group package settings. Names and version sort keys are
 * compared byte-wise (`collate "C"` on PostgreSQL, SQLite's default), so both dialects order
 * them the same way; sizes and offsets are 64-bit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const bytewise = sql`collate "C"`;
  const big = pg ? 'bigint' : 'integer';

  await withId(db, db.schema.createTable('packages'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('package_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lower_name', 'text', (c) => (pg ? c.notNull().modifyEnd(bytewise) : c.notNull()))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('normalized_version', 'text', (c) => c.notNull())
    .addColumn('version_sort', 'text', (c) => (pg ? c.notNull().modifyEnd(bytewise) : c.notNull()))
    .addColumn('prerelease', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('authors', 'text')
    .addColumn('description', 'text')
    .addColumn('summary', 'text')
    .addColumn('title', 'text')
    .addColumn('tags', 'text')
    .addColumn('project_url', 'text')
    .addColumn('icon_url', 'text')
    .addColumn('license_url', 'text')
    .addColumn('dependency_groups', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('download_count', big, (c) => c.notNull().defaultTo(0))
    .addColumn('last_downloaded_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('packages_identity')
    .on('packages')
    .columns(['project_id', 'package_type', 'lower_name', 'normalized_version'])
    .unique()
    .execute();
  await db.schema.createIndex('packages_project_name_version').on('packages').columns(['project_id', 'lower_name', 'version_sort']).execute();
  await db.schema.createIndex('packages_name').on('packages').columns(['lower_name']).execute();
  await db.schema.createIndex('packages_project_created').on('packages').columns(['project_id', 'created_at', 'id']).execute();

  await withId(db, db.schema.createTable('package_files'))
    .addColumn('package_id', 'integer', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('file_kind', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size', big, (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('package_files_package').on('package_files').columns(['package_id', 'file_kind', 'id']).execute();

  await withId(db, db.schema.createTable('package_symbols'))
    .addColumn('package_id', 'integer', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('package_file_id', 'integer', (c) => c.notNull().references('package_files.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_path', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('lower_signature', 'text', (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('size', big, (c) => c.notNull())
    .addColumn('compressed_size', big, (c) => c.notNull())
    .addColumn('compression_method', 'integer', (c) => c.notNull())
    .addColumn('local_header_offset', big, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('package_symbols_lookup').on('package_symbols').columns(['lower_signature', 'file_name']).execute();
  await db.schema.createIndex('package_symbols_package').on('package_symbols').columns(['package_id']).execute();

  await db.schema
    .createTable('namespace_package_settings')
    .addColumn('namespace_id', 'integer', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
    .addColumn('nuget_duplicates_allowed', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('nuget_duplicate_exception_regex', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('nuget_symbol_server_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
