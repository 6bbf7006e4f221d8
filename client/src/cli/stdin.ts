/**
 * Reads a tool's event from stdin without trusting the tool to close it: Kiro IDE's older
 * versions never do, and a hook that waits for EOF would hang the tool. Reading ends at EOF,
 * once the text read so far is complete JSON and nothing more arrives for a moment, when
 * nothing at all arrives within `idleMs`, or at `deadline`.
 */
const SETTLE_MS = 30;
const MAX_BYTES = 64 * 1024 * 1024;

/** The bytes read, exactly: the hook hashes them when the tool input cannot be recorded as JSON. */
export function readStdin(options: { idleMs?: number; deadline: number }): Promise<Buffer> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(overall);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      stdin.pause();
      stdin.unref?.();
      resolve(Buffer.concat(chunks));
    };
    const overall = setTimeout(finish, Math.max(0, options.deadline - Date.now()));
    if (options.idleMs !== undefined) timer = setTimeout(finish, options.idleMs);
    stdin.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes > MAX_BYTES) return finish();
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (isCompleteJson(chunks)) finish();
      }, SETTLE_MS);
    });
    stdin.on('end', finish);
    stdin.on('error', finish);
  });
}

function isCompleteJson(chunks: Buffer[]): boolean {
  try {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
