import { defineConfig } from 'tsup';

/**
 * `forgelet serve` must answer within 300 ms of process start. Loading kysely (~280 ESM
 * files) and undici from node_modules costs ~150 ms more than one bundled chunk, so the
 * server, core and their pure-JS dependencies are bundled (from source, so the build does
 * not depend on the other packages' dist). Native and lazily used modules stay external;
 * Ink and React load only in commands that render.
 */
export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: 'esm',
  target: 'node20',
  clean: true,
  splitting: true,
  noExternal: ['@forgelet/core', '@forgelet/server', '@forgelet/client', 'kysely', 'undici', 'commander'],
  external: ['better-sqlite3', 'pg', 'ink', 'react', '@aws-sdk/client-s3', '@aws-sdk/lib-storage'],
  // bundled CommonJS (undici, commander) calls require()
  banner: { js: "import { createRequire as __forgeletRequire } from 'node:module'; const require = __forgeletRequire(import.meta.url);" },
  esbuildOptions(options) {
    options.jsx = 'automatic';
    options.conditions = ['source'];
  },
});
