import type { Route } from '../../kernel/route.js';

/** Routes of this domain (filled in as the domain lands). */
export const milestonesRoutes: Route[] = [];
