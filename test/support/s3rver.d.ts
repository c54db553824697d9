declare module 's3rver' {
  export default class S3rver {
    constructor(options: { address?: string; port?: number; silent?: boolean; directory?: string; configureBuckets?: { name: string; configs: unknown[] }[] });
    run(): Promise<import('node:net').AddressInfo>;
    close(): Promise<void>;
  }
}
