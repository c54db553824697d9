import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace packages export their TypeScript sources under the `source` condition.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { include: ['*.spec.ts'], testTimeout: 30_000, hookTimeout: 30_000 },
});
