/**
 * Functions that share one process (the local stack runs them all in one) log with their own
 * context: a sign-up's lines are not attributed to the epoch sealer that ran meanwhile
 * (lambdas/logger.ts withOwnLogger, local/handler-modules.ts).
 */
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger, withOwnLogger } from '../../lambdas/logger.js';

const context = (functionName: string) =>
  ({ functionName, functionVersion: '$LATEST', invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`, memoryLimitInMB: '1024', awsRequestId: `${functionName}-request` }) as Context;

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the logger of overlapping invocations in one process', () => {
  let lines: Record<string, unknown>[];
  let level: string;
  beforeEach(() => {
    lines = [];
    level = logger.getLevelName();
    logger.setLogLevel('INFO');
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    logger.setLogLevel(level as 'INFO');
  });

  async function invocation(name: string, key: string) {
    logger.resetKeys();
    logger.addContext(context(name));
    logger.appendKeys({ worker: key });
    await tick();
    logger.info(`${name} first`);
    await tick();
    logger.info(`${name} second`);
  }

  it('keeps each invocation’s function name and keys on its own lines', async () => {
    await Promise.all([withOwnLogger(() => invocation('SignUpEmail', 'none')), withOwnLogger(() => invocation('SealEpochs', 'SealEpochs'))]);
    const byMessage = Object.fromEntries(lines.map((line) => [line.message, line]));
    for (const name of ['SignUpEmail', 'SealEpochs']) {
      for (const which of ['first', 'second']) expect(byMessage[`${name} ${which}`], `${name} ${which}`).toMatchObject({ function_name: name });
    }
    expect(byMessage['SignUpEmail second']?.worker).toBe('none');
  });

  it('without their own loggers, they did bleed (the fault this guards against)', async () => {
    await Promise.all([invocation('SignUpEmail', 'none'), invocation('SealEpochs', 'SealEpochs')]);
    const signUp = lines.find((line) => line.message === 'SignUpEmail first');
    expect(signUp?.function_name).toBe('SealEpochs');
  });
});

describe("the local verification mail in a terminal", () => {
  it('stands apart from the access lines, its link on a line of its own, coloured unless NO_COLOR', async () => {
    const { mailNotice } = await import('../../lambdas/adapters/local/mail-notice.js');
    const mail = { to: 'ada@example.com', subject: 'Verify your email address for agent-ledger', link: 'http://127.0.0.1:3000/api/auth/verify-email?token=abc' };
    const plain = mailNotice(mail, { color: false });
    expect(plain).toBe(`\n mail sent (local identity provider)  to ada@example.com: Verify your email address for agent-ledger\n  open ${mail.link}\n\n`);
    const coloured = mailNotice(mail, { color: true });
    expect(coloured).toContain('\u001b[1;30;43m mail sent (local identity provider) \u001b[0m');
    expect(coloured).toContain(`\u001b[4;36m${mail.link}\u001b[0m`);
  });
});
