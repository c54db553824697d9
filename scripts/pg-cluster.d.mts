// Types of scripts/pg-cluster.mjs for the TypeScript tests that start a cluster of their own.
export interface PgCluster {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}
export function startCluster(): Promise<PgCluster>;
export function findPgBinDir(): string | null;
