#!/usr/bin/env -S node --max-semi-space-size=4
// --max-semi-space-size=4 (MB): V8's young generation otherwise grows to 16 MB a half-space
// under load and, with no full collection afterwards, is never given back: an idle server
// stayed at ~120 MB after a load instead of ~80 MB. `npm start` passes the same flag, and
// `npm run bench` launches the server with the flags of this line.
// The `forgelet` command: runs the built CLI (packages/cli/dist, made by `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../packages/cli/dist/main.js', import.meta.url);

if (!existsSync(main)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(
    `forgelet: the CLI is not built (${fileURLToPath(main)} is missing).\n` +
      `Run \`npm run build\` in ${root} (\`npm install\` runs it too, through the prepare script).\n`,
  );
  process.exit(1);
}

await import(main.href);
