/**
 * Spawns a long-lived child (DynamoDB Local's JVM) so that it can never outlive us
 * (docs/ARCHITECTURE.md, Local stack: "never leaves an orphaned Java process"), even when this process
 * is SIGKILLed and gets no chance to clean up.
 *
 * The child runs under a small POSIX sh watchdog whose stdin is a pipe held only by this
 * process. The kernel closes that pipe however we die, the watchdog's reader sees EOF and
 * terminates the child (SIGTERM, SIGKILL 3 s later). The watchdog is its own process group
 * (detached), so a terminal's Ctrl-C reaches only us, we stop the child in order, and a
 * last-resort SIGKILL to the group takes everything down. Unix only (needs /bin/sh).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute } from 'node:path';

/**
 * $@ is the command. fd 3 keeps our pipe for the watcher; the command and the shell itself
 * read /dev/null. Background jobs of a non-interactive sh ignore SIGINT, hence SIGTERM.
 */
const WATCHDOG_SCRIPT = `
exec 3<&0 0</dev/null
"$@" 3<&- &
child=$!
{ cat <&3 >/dev/null; kill -TERM "$child"; sleep 3; kill -KILL "$child"; } >/dev/null 2>&1 &
watcher=$!
exec 3<&-
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
while :; do
  wait "$child"; status=$?
  kill -0 "$child" 2>/dev/null || break
done
kill "$watcher" 2>/dev/null
exit "$status"
`;

const OUTPUT_TAIL_BYTES = 16 * 1024;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WatchedProcess {
  /** Pid of the watchdog shell, which is also the process group id of the child. */
  readonly pid: number;
  /** Resolves when the child (and so the watchdog) has exited. */
  readonly exited: Promise<Exit>;
  /** The last few KiB of the child's stdout and stderr, for error messages. */
  output(): string;
  /** Terminates the child: SIGTERM, then SIGKILL to the whole group after `graceMs`. Idempotent. */
  stop(graceMs?: number): Promise<Exit>;
}

interface WatchOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Copy the child's output to our stderr (diagnostics). */
  echo?: boolean;
}

export function spawnWatched(command: string, args: readonly string[], options: WatchOptions = {}): WatchedProcess {
  const child: ChildProcess = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'ledger-watchdog', command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) {
    // spawn reports the failure asynchronously; /bin/sh missing is the only realistic cause.
    throw new Error(`cannot start /bin/sh to supervise ${command}`);
  }
  const pid = child.pid;
  let tail = '';
  const collect = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
    if (options.echo) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // Writing nothing: the pipe exists only to be closed. Ignore EPIPE if the shell is gone.
  child.stdin?.on('error', () => {});

  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      child.stdin?.destroy();
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      tail += `\n${error.message}`;
      resolve({ code: null, signal: null });
    });
  });
  let exitCode: Exit | undefined;
  void exited.then((exit) => (exitCode = exit));

  let stopping: Promise<Exit> | undefined;
  const stop = (graceMs = 3000): Promise<Exit> => {
    stopping ??= (async () => {
      if (exitCode) return exitCode;
      child.stdin?.end(); // the watcher's EOF: SIGTERM to the child
      signalGroup(pid, 'SIGTERM', false);
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL', true), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  return { pid, exited, output: () => tail, stop };
}

/** SIGTERM goes to the shell (its trap forwards it); SIGKILL goes to the whole group. */
function signalGroup(pid: number, signal: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // already gone
  }
}

interface RemovalGuard {
  /** Deletes the path now and ends the guard. Idempotent. */
  release(): Promise<void>;
}

/**
 * Deletes `path` (absolute) when this process ends, however it ends: a detached `sh` waits
 * for EOF on a pipe only we hold, then runs `rm -rf`. For scratch data of an in-memory run,
 * which must not outlive it even when we are SIGKILLed. Does not keep the event loop alive.
 */
export function removeWhenGone(path: string): RemovalGuard {
  if (!isAbsolute(path) || path === '/') throw new Error(`refusing to guard "${path}": need an absolute path below /`);
  const child = spawn('/bin/sh', ['-c', 'cat >/dev/null; rm -rf -- "$1"', 'ledger-cleanup', path], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  child.stdin?.on('error', () => {});
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  let releasing: Promise<void> | undefined;
  return {
    release: () =>
      (releasing ??= (async () => {
        child.ref(); // now we do wait for it: the caller awaits the deletion
        child.stdin?.end();
        await exited;
      })()),
  };
}
