import type { DoraMetric, DoraPoint } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export interface DoraMetricsParams {
  /** `YYYY-MM-DD`; default three months before today. */
  start_date?: string;
  /** `YYYY-MM-DD`; default today. */
  end_date?: string;
  /** Default `daily`; `monthly` and `all` are medians of the daily medians for the time metrics. */
  interval?: 'daily' | 'monthly' | 'all';
  /** Default `['production']`. */
  environment_tiers?: ('production' | 'staging' | 'testing' | 'development' | 'other')[];
}

/**
 * DORA metrics (Ultimate; Reporter and up): `/projects/:id/dora/metrics` and
 * `/groups/:id/dora/metrics` (every project below the group), as `{date, value}` points.
 */
export class DoraMetrics {
  constructor(private readonly requester: Requester) {}

  project(projectId: ResourceId, metric: DoraMetric, params: DoraMetricsParams = {}): Promise<DoraPoint[]> {
    return this.requester.get(endpoint`projects/${projectId}/dora/metrics`, { metric, ...params });
  }

  group(groupId: ResourceId, metric: DoraMetric, params: DoraMetricsParams = {}): Promise<DoraPoint[]> {
    return this.requester.get(endpoint`groups/${groupId}/dora/metrics`, { metric, ...params });
  }
}
