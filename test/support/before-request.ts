/**
 * A moment chosen inside a request flow: `run` once, just before the first DynamoDB request
 * of this process that `matches` is sent, which then goes on as it would have. How tests put
 * a concurrent change (a revocation, a seal) exactly between a handler's reads and its write.
 * Undone by vi.restoreAllMocks().
 */
import { vi } from 'vitest';
import { dynamo } from '../../lambdas/store/clients.js';
import type { Loose } from './http-client.js';

/**
 * @example
 * const moment = beforeRequest((c) => c instanceof TransactWriteCommand, () => revokeKey());
 * await submit();
 * expect(moment.ran()).toBe(true);
 */
export function beforeRequest(matches: (command: Loose) => boolean, run: (command: Loose) => Promise<unknown>): { ran: () => boolean } {
  const original = dynamo().send.bind(dynamo());
  let ran = false;
  vi.spyOn(dynamo(), 'send').mockImplementation(async (command: Loose, ...rest: Loose[]) => {
    if (!ran && matches(command)) {
      ran = true;
      await run(command);
    }
    return original(command, ...rest);
  });
  return { ran: () => ran };
}
