#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=4 --expose-gc
// How the server process is run, for its memory (issue 25; figures in the README, "What keeps these"):
// --max-semi-space-size=4 (MB): V8's young generation otherwise grows to 16 MB a half-space
//   under load and, with no full collection afterwards, is never given back.
// --expose-gc: `forgelet serve` collects once when it falls idle after work (cli idle-gc.ts);
//   without it the garbage of the last burst, and the buffers it holds, stay until V8's memory
//   reducer runs, from 8 s to never.
// MALLOC_MMAP_THRESHOLD_=65536 (glibc): request bodies arrive as 64 KB buffers freed only by the
//   GC; from the brk heap they left it fragmented and never returned (about 30 MB after a 2 GB
//   upload); mapped on their own, each is returned when freed.
// MALLOC_ARENA_MAX=2 (glibc): V8's compiler and GC threads each got a malloc arena that kept
//   what they freed (about 12 MB after a load).
// glibc reads these at start; they are removed below unless the command is `serve`, so that
// runner jobs and other processes Forgelet starts do not inherit them. `npm start` and
// `npm run bench` use the same line.
// The `forgelet` command: runs the built CLI (packages/cli/dist, made by `npm run build`).
import { existsSync, readFileSync } from 'node:fs';
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

if (process.argv[2] !== 'serve') {
  const assigned = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n', 1)[0].matchAll(/\b([A-Z_]+)=(\S+)/g);
  for (const [, name, value] of assigned) if (process.env[name] === value) delete process.env[name];
}

await import(main.href);
