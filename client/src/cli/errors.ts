/**
 * An error meant for the person at the terminal: its message is printed as is (one or two
 * lines saying what went wrong and how to fix it), never with a stack trace.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    /** Process exit code: 1 for failures, 2 for wrong usage. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(`${message}\nRun \`agent-ledger --help\` for usage.`, 2);
