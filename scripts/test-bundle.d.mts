// Types of scripts/test-bundle.mjs for the TypeScript tests that bundle test files themselves.
/** Bundles `files` (relative to `root`) into `outDir`; maps each to its bundle's path (relative to `root`). */
export function bundleTests(root: string, files: string[], outDir: string): Promise<Map<string, string>>;
