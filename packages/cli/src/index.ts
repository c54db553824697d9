/** @forgelet/cli: the `forgelet` command line. */
export { buildProgram, run } from './program.js';
export type { CliIo, OutputStream } from './io.js';
