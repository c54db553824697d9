/** Runs `forgelet …` in-process (`run`) with fake streams: exit code, stdout and stderr. */
import { run, type CliIo } from '@forgelet/cli';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeIoOptions {
  /** stdout is a terminal. */
  tty?: boolean;
  /** stderr is a terminal (spinners and progress bars are drawn there). */
  ttyErr?: boolean;
  columns?: number;
}

export async function runIn(args: string[], env: NodeJS.ProcessEnv = {}, options: FakeIoOptions = {}): Promise<RunResult> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s), columns: options.columns ?? 120, isTTY: options.tty ?? false },
    stderr: { write: (s: string) => (err += s), columns: options.columns ?? 120, isTTY: options.ttyErr ?? false },
    env,
  };
  const code = await run(args, io);
  return { code, stdout: out, stderr: err };
}

/** The lines of a table, cells split on runs of 2+ spaces. */
export function tableCells(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => l.trimEnd().split(/\s{2,}/));
}

/** Removes ANSI escapes (colours, cursor moves). */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
}
