// Fallback for the startup benchmark while the CLI (bin/forgelet.js) does not exist:
// the server part of `forgelet serve`, from the BUILT packages (no tsx, no sources).
//   node bench/serve-dist.mjs --port <port> --data <dir>
// Exits cleanly on SIGTERM / SIGINT.
import { startForgelet } from '../packages/server/dist/index.js';

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const running = await startForgelet({ port: Number(arg('port') ?? 8080), host: '127.0.0.1', dataDir: arg('data') });
process.stdout.write(`listening on ${running.url}\n`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await running.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
