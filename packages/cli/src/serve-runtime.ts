/**
 * What `forgelet serve` runs: the server and core, built on their own into one CommonJS file
 * (dist/serve/serve-runtime.cjs, tsup.serve.config.ts) so it can be compiled with a V8 code
 * cache (compiled-runtime.ts).
 */
export { consoleLogger, startForgelet } from '@forgelet/server';
export { TIERS } from '@forgelet/core';
