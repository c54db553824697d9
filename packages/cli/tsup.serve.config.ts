import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * `forgelet serve`'s runtime (server, core and their pure-JS dependencies) as one CommonJS
 * file, dist/serve/serve-runtime.cjs, which src/compiled-runtime.ts compiles with a V8 code
 * cache. Built after the ESM build (package.json), into a folder of its own.
 */
export default defineConfig({
  entry: { 'serve-runtime': 'src/serve-runtime.ts' },
  outDir: 'dist/serve',
  format: 'cjs',
  outExtension: () => ({ js: '.cjs' }),
  target: 'node20',
  clean: true,
  splitting: false,
  // import.meta.url (createRequire for pg and marked) from __filename
  shims: true,
  noExternal: ['@forgelet/core', '@forgelet/server', 'kysely'],
  // native, or loaded only when used (pg for PostgreSQL, undici for outbound calls, the AWS SDK for s3:// blobs)
  external: ['better-sqlite3', 'pg', 'marked', 'undici', 'yazl', '@aws-sdk/client-s3', '@aws-sdk/lib-storage'],
  esbuildOptions(options) {
    options.conditions = ['source'];
  },
  // esbuild escapes non-ASCII in strings, not in the comments it keeps: a few dependencies'
  // comments made the whole file UTF-8, which node decodes slowly and V8 then holds as a
  // two-byte string. Escaped there too, the file is ASCII (read ~3x faster, half the memory).
  async onSuccess() {
    const file = 'dist/serve/serve-runtime.cjs';
    const text = readFileSync(file, 'utf8');
    // A script compiled from a V8 code cache has no dynamic import callback on Node 20: an
    // import() left in the bundle works on the first start and throws on every later one.
    const dynamic = text.match(/[\s=(,:?!;&|]import\(\s*["'`][^"'`]*["'`]\s*\)/g);
    if (dynamic) throw new Error(`${file} calls import() (${[...new Set(dynamic.map((d) => d.trim()))].join(', ')}): use require for what serve loads lazily`);
    writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  },
});
