export { bulkImportsRoutes } from './bulk-imports.routes.js';
export { registerBulkImportJobs, ENTITY_JOB as BULK_IMPORT_ENTITY_JOB, missingAuthorNote } from './engine.js';
export { exportSettings as bulkImportExportSettings, GROUP_EXPORT_RELATIONS, PROJECT_EXPORT_RELATIONS } from './exports.js';
export type { BulkImportEntity, BulkImportEntityEntity, StartBulkImportInput, ListBulkImportsInput } from './bulk-imports.js';
export type { BulkImportRow, BulkImportEntityRow, BulkImportTrackerRow, BulkImportFailureRow } from './bulk-import.table.js';
