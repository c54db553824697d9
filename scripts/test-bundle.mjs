// Bundles test files for the test runner (scripts/test.mjs): each test file with the TypeScript
// sources it imports (the workspace packages by their `source` condition), one ESM entry per
// file with the shared code in common chunks, npm packages left as imports.
//
// Why: under tsx on Node 20 every module goes through the off-thread loader hooks, and a test
// process spent about 2 s of CPU loading the ~460 modules of @forgelet/core before its first test;
// with ~290 test files that was a third of the suite's CPU. A bundle loads in about 0.4 s.
//
// Each source's `import.meta.url` is replaced by its own file URL, so paths resolved from it
// (fixtures, scripts, package files) are those of the source tree, as under tsx. Source maps
// point stack traces at the .ts files.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles `files` (paths relative to `root`) into `outDir`; returns a map from each test file
 * to its bundle's path (relative to `root`, same directory layout, `.test.mjs`).
 */
export async function bundleTests(root, files, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // ES modules whatever the extension; bare imports resolve from the repo's node_modules (outDir is inside the repo).
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const sourceUrls = {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        let contents = await readFile(args.path, 'utf8');
        if (contents.includes('import.meta')) {
          const url = JSON.stringify(pathToFileURL(args.path).href);
          contents = contents.replace(/\bimport\.meta\.url\b/g, url).replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(path.dirname(args.path))).replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
        }
        return { contents, loader: /\.(mjs|js)$/.test(args.path) ? 'js' : args.path.endsWith('x') ? 'tsx' : 'ts', resolveDir: path.dirname(args.path) };
      });
    },
  };
  // npm packages stay imports (native addons, their own file lookups); the workspace is bundled.
  // A package the bundle's directory would resolve to another copy of (packages/cli has its own
  // commander) is imported by its absolute path instead.
  const hoisted = path.join(root, 'node_modules') + path.sep;
  const externals = {
    name: 'npm-external',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('@forgelet/') || args.pluginData === 'npm-external') return undefined;
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'npm-external' });
        if (found.errors.length > 0 || !found.path || found.path.startsWith(hoisted)) return { path: args.path, external: true };
        return { path: found.path, external: true };
      });
    },
  };
  const entryPoints = Object.fromEntries(files.map((f) => [f.replace(/\.test\.tsx?$/, '.test'), path.join(root, f)]));
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['source'],
    sourcemap: 'linked',
    sourcesContent: false,
    tsconfig: path.join(root, 'tsconfig.json'),
    jsx: 'automatic',
    logLevel: 'warning',
    plugins: [sourceUrls, externals],
    // Chunks are named by content; keep them beside the entries.
    chunkNames: '_chunks/[name]-[hash]',
  });
  return new Map(files.map((f) => [f, path.relative(root, path.join(outDir, f.replace(/\.test\.tsx?$/, '.test.mjs')))]));
}
