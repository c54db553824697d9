/**
 * Just enough of vitest's types for the repository's typecheck, where vitest is not
 * installed (it is not a dependency of Forgelet). Running the example uses the real vitest.
 */
declare module 'vitest' {
  type Hook = () => unknown;
  export function describe(name: string, body: () => void): void;
  export function it(name: string, body: () => unknown): void;
  export function beforeAll(hook: Hook): void;
  export function afterAll(hook: Hook): void;
  export function beforeEach(hook: Hook): void;
  export function expect<T>(actual: T): {
    toBe(expected: T): void;
    toEqual(expected: unknown): void;
    toHaveLength(length: number): void;
  };
}

declare module 'vitest/config' {
  export function defineConfig<T extends object>(config: T): T;
}
