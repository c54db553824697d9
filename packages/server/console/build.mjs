/**
 * Builds the web console (src/) into ../dist/console: index.html and assets/ with content-hashed
 * names (served for good), each asset also gzipped (.gz) for browsers that accept it. esbuild
 * (tsup's) bundles Preact, the client SDK (its `browser` fields: the page's fetch instead of
 * undici) and the views; nothing is loaded from elsewhere at run time.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  conditions: ['source'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  // The client's Node-only parts (streamed downloads, multipart from files) map to empty modules (its `browser` field): unused here.
  logOverride: { 'import-is-undefined': 'silent' },
});

const files = Object.keys(result.metafile.outputs).map((f) => basename(f));
const script = files.find((f) => f.endsWith('.js'));
const style = files.find((f) => f.endsWith('.css'));
for (const f of files) writeFileSync(join(out, 'assets', `${f}.gz`), gzipSync(readFileSync(join(out, 'assets', f)), { level: 9 }));
writeFileSync(
  join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forgelet</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="/-/console/assets/${style}">\n` : ''}<script type="module" src="/-/console/assets/${script}"></script>
</head>
<body><div id="app"></div></body>
</html>
`,
);
const sizes = files.map((f) => `${f} ${readFileSync(join(out, 'assets', f)).length} B (${readFileSync(join(out, 'assets', `${f}.gz`)).length} B gzipped)`);
console.log(`console: ${sizes.join(', ')}`);
