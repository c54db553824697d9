/**
 * Loads the serve runtime (serve-runtime.ts) with a V8 code cache.
 *
 * On Node 20, ES modules have no code cache: compiling the ~3 MB of server, core and their
 * dependencies was ~60 ms of the ~250 ms from spawning `forgelet serve` to its first answer.
 * The build also writes that code as one CommonJS file (dist/serve/serve-runtime.cjs); it is
 * compiled here as a `vm.Script` with the cache V8 produced on an earlier start, which V8 then
 * deserializes instead of parsing. (Node 22's `module.enableCompileCache()` does the same for
 * every module; this is the part of it `serve` needs, on every supported Node.)
 *
 * The cache sits next to the bundle, named after what it depends on: the bundle's size and
 * modification time and node's version, architecture and flags. V8 checks its own version and
 * flags too, and refuses a cache that does not fit (`cachedDataRejected`). A missing or refused
 * cache is written once the server is up; where the folder is read-only it is simply not
 * written, and every start compiles the bundle as before.
 *
 * Run from source (tests under tsx, `--conditions=source`), there is no bundle next to this
 * module: the packages are imported as usual.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export type ServeRuntime = typeof import('./serve-runtime.js');

export interface LoadedRuntime {
  runtime: ServeRuntime;
  /** 'bundle, cached' | 'bundle, compiled' | 'modules': how it was loaded (for diagnostics and tests). */
  how: 'bundle, cached' | 'bundle, compiled' | 'modules';
  /** Writes the code cache when there was none (or V8 refused it): call once startup is done. */
  saveCache(): void;
}

const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_TAIL = '\n});';

export function runtimeBundlePath(from: string = import.meta.url): string {
  return join(dirname(fileURLToPath(from)), 'serve', 'serve-runtime.cjs');
}

export function cachePathFor(bundle: string): string {
  const { size, mtimeMs } = statSync(bundle);
  const key = JSON.stringify([size, mtimeMs, process.version, process.arch, process.execArgv]);
  return `${bundle}.${createHash('sha256').update(key).digest('hex').slice(0, 16)}.v8cache`;
}

export async function loadServeRuntime(bundle: string = runtimeBundlePath()): Promise<LoadedRuntime> {
  // Without node's default loader for a script's import() (Node < 20.12), undici could not be
  // loaded from the bundle: the modules are imported as usual.
  if (!existsSync(bundle) || !vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER) {
    const [server, core] = await Promise.all([import('@forgelet/server'), import('@forgelet/core')]);
    return { runtime: { startForgelet: server.startForgelet, consoleLogger: server.consoleLogger, TIERS: core.TIERS }, how: 'modules', saveCache() {} };
  }
  const source = readFileSync(bundle, 'utf8');
  const cacheFile = cachePathFor(bundle);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined; // first start of this build (or a read-only folder): compiled from source
  }
  const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
    filename: bundle,
    cachedData,
    // The bundle's import() (undici, for outbound calls) goes through node's own loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cached = cachedData !== undefined && !script.cachedDataRejected;
  const wrapper = script.runInThisContext() as (exports: object, require: NodeRequire, module: { exports: object }, filename: string, dirname: string) => void;
  const module = { exports: {} as ServeRuntime };
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    runtime: module.exports,
    how: cached ? 'bundle, cached' : 'bundle, compiled',
    saveCache() {
      if (cached) return;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        // After startup: the cache then holds every function the start compiled, not only the top level.
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // read-only install: start without a cache next time too
        rmSync(tmp, { force: true });
      }
    },
  };
}
