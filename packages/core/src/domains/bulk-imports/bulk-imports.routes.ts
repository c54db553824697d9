import { ok, paged, route, created, type Route } from '../../kernel/route.js';
import {
  cancelBulkImport,
  EntityRefInput,
  getBulkImport,
  getImportEntity,
  ImportRefInput,
  ListBulkImportsInput,
  listBulkImports,
  ListImportEntitiesInput,
  listImportEntities,
  listEntityFailures,
  StartBulkImportInput,
  startBulkImport,
} from './bulk-imports.js';
import { downloadExport, DownloadExportInput, downloadPackageFile, exportStatus, ExportStatusInput, PackageFileExportInput, requestExport, RequestExportInput } from './exports.js';

const tag = 'bulk_imports';

export const bulkImportsRoutes: Route[] = [
  route('POST', '/bulk_imports', { auth: 'required', params: StartBulkImportInput, tag, summary: 'Start a migration by direct transfer' },
    async (ctx, input) => created(await startBulkImport(ctx, input))),
  route('GET', '/bulk_imports', { auth: 'required', params: ListBulkImportsInput, tag, summary: 'List your migrations' },
    async (ctx, input) => paged(await listBulkImports(ctx, input))),
  route('GET', '/bulk_imports/entities', { auth: 'required', params: ListBulkImportsInput, tag, summary: 'List the entities of all your migrations' },
    async (ctx, input) => paged(await listImportEntities(ctx, input))),
  route('GET', '/bulk_imports/:import_id', { auth: 'required', params: ImportRefInput, tag, summary: 'Get one migration' },
    async (ctx, input) => ok(await getBulkImport(ctx, input.import_id))),
  route('GET', '/bulk_imports/:import_id/entities', { auth: 'required', params: ListImportEntitiesInput, tag, summary: 'List the entities of a migration' },
    async (ctx, input) => paged(await listImportEntities(ctx, input))),
  route('GET', '/bulk_imports/:import_id/entities/:entity_id', { auth: 'required', params: EntityRefInput, tag, summary: 'Get one migration entity' },
    async (ctx, input) => ok(await getImportEntity(ctx, input.import_id, input.entity_id))),
  route('GET', '/bulk_imports/:import_id/entities/:entity_id/failures', { auth: 'required', params: EntityRefInput, tag, summary: "An entity's failed import records" },
    async (ctx, input) => ok(await listEntityFailures(ctx, input.import_id, input.entity_id))),
  route('POST', '/bulk_imports/:import_id/cancel', { auth: 'required', params: ImportRefInput, tag, summary: 'Cancel a migration' },
    async (ctx, input) => ok(await cancelBulkImport(ctx, input.import_id))),
  // The source side of direct transfer: a group's relations as NDJSON.
  route('POST', '/groups/:id/export_relations', { auth: 'required', params: RequestExportInput, tag, summary: 'Start a relations export of a group (direct transfer source)' },
    requestExport('group')),
  route('GET', '/groups/:id/export_relations/status', { auth: 'required', params: ExportStatusInput, tag, summary: "Status of a group's relation exports" },
    exportStatus('group')),
  route('GET', '/groups/:id/export_relations/download', { auth: 'required', params: DownloadExportInput, tag, summary: 'Download one relation export (gzipped NDJSON)' },
    downloadExport('group')),
  // The source side of direct transfer: a project's relations as NDJSON.
  route('POST', '/projects/:id/export_relations', { auth: 'required', params: RequestExportInput, tag, summary: 'Start a relations export of a project (direct transfer source)' },
    requestExport('project')),
  route('GET', '/projects/:id/export_relations/status', { auth: 'required', params: ExportStatusInput, tag, summary: "Status of a project's relation exports" },
    exportStatus('project')),
  route('GET', '/projects/:id/export_relations/download', { auth: 'required', params: DownloadExportInput, tag, summary: 'Download one relation export (gzipped NDJSON)' },
    downloadExport('project')),
  route('GET', '/projects/:id/export_relations/package_files/:package_file_id', { auth: 'required', params: PackageFileExportInput, tag, summary: "One package file of a project's `packages` relation export (Forgelet's; the destination streams it)" },
    downloadPackageFile),
];
