/** Times one dependency check, bounded so a hanging dependency reports "down" instead of hanging the caller. */
interface ProbeResult {
  status: 'ok' | 'down';
  latency_ms: number;
  error?: string;
}

export async function probe(check: () => Promise<unknown>, timeoutMs = 2_000): Promise<ProbeResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return { status: 'ok', latency_ms: elapsed(started) };
  } catch (error) {
    // The error name only: messages of SDK errors can carry account ids or resource ARNs.
    const reason = error instanceof Error ? (error.name === 'Error' ? error.message : error.name) : 'unknown error';
    return { status: 'down', latency_ms: elapsed(started), error: reason };
  } finally {
    clearTimeout(timer);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
