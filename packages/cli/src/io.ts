/** Where commands read their environment and write their output (fakes in tests). */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** `--json` output: one line per document, so scripts can read it line by line. */
export function writeJson(out: OutputStream, value: unknown): void {
  out.write(`${JSON.stringify(value)}\n`);
}

/** `Key:   value` lines for one resource shown to people, the values in one column. */
export function formatFields(lines: readonly (readonly [string, string])[]): string {
  const width = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v}\n`).join('');
}
