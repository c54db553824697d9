/** Entry point of the `forgelet` binary (bin/forgelet.js imports the built copy). */
import { run } from './program.js';

const args = process.argv.slice(2);
// `forgelet` alone in a terminal opens the interactive console; without a terminal it prints the help.
const code = await run(args.length === 0 && process.stdin.isTTY && process.stdout.isTTY ? ['console'] : args);
process.exitCode = code;
// Exit on our own if a dependency leaves a handle open after the command (or server) is done.
setTimeout(() => process.exit(code), 1000).unref();
