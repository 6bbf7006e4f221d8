/**
 * How a bench script runs its `main`: under a hard timeout (a stalled local engine must not
 * hang `npm run bench`), its error printed through the script's own log line and the exit
 * code set, and the timer cleared once it is done.
 */
export function runBench(main: () => Promise<void>, hardTimeoutMs: number, log: (line: string) => void): void {
  const timer = setTimeout(() => {
    log('hard timeout');
    process.exit(2);
  }, hardTimeoutMs).unref();
  main().then(
    () => clearTimeout(timer),
    (error: unknown) => {
      log(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exitCode = 1;
    },
  );
}
