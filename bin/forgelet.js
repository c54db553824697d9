#!/usr/bin/env node
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
