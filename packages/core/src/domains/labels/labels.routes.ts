import type { Route } from '../../kernel/route.js';

/** Group and project label routes (filled in by the planning work). */
export const labelsRoutes: Route[] = [];
