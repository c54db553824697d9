/** @forgelet/server: the node:http shell around @forgelet/core. */
export { ForgeletServer, consoleLogger, silentLogger, type Logger, type ServerOptions } from './server.js';
export { dataDirLayout, ensureDataDir, loadOrCreateSecretKey, startForgelet, type DataDirLayout, type RunningForgelet, type StartOptions } from './start.js';
export { Router, type Match } from './router.js';
export { parseQuery, buildQuery } from './query.js';
