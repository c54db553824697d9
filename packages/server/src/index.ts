/** @forgelet/server: the node:http shell around @forgelet/core. */
export { ForgeletServer, consoleLogger, silentLogger, type Logger, type ServerOptions } from './server.js';
export { dataDirLayout, ensureDataDir, secretKeySource, startForgelet, type DataDirLayout, type RunningForgelet, type StartOptions, type TestClock } from './start.js';
export { formatKeyFile, KeyFileError, keyFileSource, loadOrCreateKeyFile, parseKeyFile, readKeyFile, writeKeyFile } from './secret-keys.js';
export { Router, type Match } from './router.js';
export { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connection.js';
export { FaultInjector, type FaultEntity, type FaultSpec } from './faults.js';
export { parseQuery, buildQuery } from './query.js';
export { parseBlobUrl, blobStoreFor, type BlobLocation } from './blob-url.js';
export { S3BlobStore, type S3BlobConfig } from './s3-blobs.js';
