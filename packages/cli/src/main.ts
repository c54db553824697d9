/** Entry point of the `forgelet` binary (bin/forgelet.js imports the built copy). */
import { run } from './program.js';

const code = await run(process.argv.slice(2));
process.exitCode = code;
// Exit on our own if a dependency leaves a handle open after the command (or server) is done.
setTimeout(() => process.exit(code), 1000).unref();
