/** Fault injection's contract, shared by the server (which applies faults) and the client. */
export interface FaultSpec {
  /** HTTP method, or any when omitted (or `*`). */
  method?: string;
  /** Glob over the request path: `*` one segment, `**` anything; `/api/v4` is implied for other paths. */
  path: string;
  /** Status to answer instead of the real one (400–599); omitted: only the latency. */
  status?: number;
  /** Added before answering (or before the real handling, for latency-only faults). */
  latency_ms?: number;
  /** How many matching calls are hit (default: all until deleted). */
  times?: number;
  /** Share of matching calls hit, 0 < fraction ≤ 1 (default 1). */
  fraction?: number;
  /** 429 only: Retry-After seconds (default 1) and the quota in RateLimit-Limit (default 60). */
  retry_after?: number;
  rate_limit?: number;
}

export interface FaultEntity {
  id: number;
  method: string | null;
  path: string;
  status: number | null;
  latency_ms: number;
  times: number | null;
  fraction: number;
  retry_after: number;
  rate_limit: number;
  /** Calls the fault can still hit (null: unlimited). */
  remaining: number | null;
  /** Matching calls seen, and how many of them were hit. */
  matched: number;
  injected: number;
}
