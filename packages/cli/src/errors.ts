/** Errors a command throws; `run` prints the message and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A bad flag or environment value: exit code 2, like commander's own parse errors. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/**
 * A refusal to start that the operator fixes (a key file without a usable key, keys that do not
 * include the database's): the message alone, without a stack. Matched by name: `serve` loads
 * core and server from a bundle of their own.
 */
export function configError(err: unknown): CliError | null {
  const name = (err as Error | null)?.name;
  return name === 'SecretKeyMismatchError' || name === 'KeyFileError' ? new CliError((err as Error).message) : null;
}
