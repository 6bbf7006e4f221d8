/**
 * A Lambda-like host for one function: its bundle imported from the asset directory the
 * template names, in a worker thread of its own whose `process.env` is exactly the
 * environment the template gives (plus what Lambda's runtime adds and the rehearsal-only
 * endpoint overrides, listed by the caller), without the rehearsal's own loaders (no tsx:
 * the bundle must stand alone). One module instance per function, as one warm Lambda
 * instance; the invocation gets Lambda's context object and the function's timeout.
 *
 * The thread runs Node 20 (this machine) where Lambda runs Node 22: a bundle that needs a
 * Node-22-only API fails here.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RehearsalFunction } from './deployment.js';
import { REGION } from './resolve.js';

/** Runs inside the worker (CommonJS, `eval`): import the bundle, answer invocations. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let handler;
  try {
    const mod = await import(workerData.moduleUrl);
    handler = mod[workerData.exportName];
    if (typeof handler !== 'function') throw new Error('the bundle exports no function ' + workerData.exportName);
  } catch (error) {
    parentPort.postMessage({ type: 'load-failed', error: String((error && error.stack) || error) });
    return;
  }
  parentPort.postMessage({ type: 'loaded' });
  parentPort.on('message', async (message) => {
    const deadline = Date.now() + workerData.timeoutMs;
    const context = {
      functionName: workerData.functionName, functionVersion: '$LATEST', invokedFunctionArn: workerData.arn,
      memoryLimitInMB: String(workerData.memoryMb), awsRequestId: message.requestId,
      logGroupName: '/aws/lambda/' + workerData.functionName, logStreamName: 'rehearsal',
      callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done() {}, fail() {}, succeed() {},
    };
    try {
      const result = await handler(message.event, context);
      parentPort.postMessage({ type: 'result', id: message.id, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
    } catch (error) {
      parentPort.postMessage({ type: 'error', id: message.id, error: { name: error && error.name, message: String(error && error.message), stack: String(error && error.stack) } });
    }
  });
})();
`;

/** What Lambda's runtime puts into every function's environment besides the template's variables. */
export function lambdaRuntimeEnvironment(fn: RehearsalFunction): Record<string, string> {
  return {
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'rehearsal',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.bundleDir,
    _HANDLER: `${fn.moduleFile.replace(/\.mjs$/, '')}.${fn.exportName}`,
    TZ: ':UTC',
  };
}

export interface Invocation {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { name?: string; message: string; stack?: string };
}

export class FunctionHost {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (outcome: Invocation) => void>();
  invocations = 0;
  /** The bundle was imported and exports its handler. */
  loaded = false;

  constructor(
    readonly fn: RehearsalFunction,
    private readonly env: Record<string, string>,
    private readonly onLog: (fn: RehearsalFunction, line: string) => void,
  ) {}

  /** Loads the bundle (once); rejects with the import error when it does not load. */
  load(): Promise<void> {
    this.ready ??= new Promise<void>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        env: this.env,
        execArgv: [],
        stdout: true,
        stderr: true,
        workerData: {
          moduleUrl: pathToFileURL(join(this.fn.bundleDir, this.fn.moduleFile)).href,
          exportName: this.fn.exportName,
          functionName: this.fn.functionName,
          arn: this.fn.arn,
          memoryMb: this.fn.memoryMb,
          timeoutMs: this.fn.timeoutSeconds * 1000,
        },
      });
      this.worker = worker;
      let buffered = '';
      const onOutput = (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) this.onLog(this.fn, line);
      };
      worker.stdout.on('data', onOutput);
      worker.stderr.on('data', onOutput);
      worker.on('message', (message: { type: string; id?: number; result?: unknown; error?: unknown }) => {
        if (message.type === 'loaded') {
          this.loaded = true;
          resolve();
        }
        else if (message.type === 'load-failed') reject(new Error(String(message.error)));
        else {
          const settle = this.pending.get(message.id!);
          this.pending.delete(message.id!);
          settle?.(message.type === 'result' ? { ok: true, result: message.result } : { ok: false, error: message.error as Invocation['error'] & object });
        }
      });
      worker.on('error', (error) => {
        reject(error);
        for (const settle of this.pending.values()) settle({ ok: false, error: { message: `the function's thread failed: ${error.message}` } });
        this.pending.clear();
      });
    });
    return this.ready;
  }

  /** One invocation with Lambda's timeout; a timed-out instance is discarded, as Lambda does. */
  async invoke(event: unknown, requestId: string): Promise<Invocation> {
    this.invocations += 1;
    try {
      await this.load();
    } catch (error) {
      return { ok: false, error: { name: 'Runtime.ImportModuleError', message: (error as Error).message } };
    }
    const id = this.nextId++;
    return new Promise<Invocation>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: { name: 'TimeoutError', message: `Task timed out after ${this.fn.timeoutSeconds} seconds` } });
        void this.stop();
      }, this.fn.timeoutSeconds * 1000 + 2000);
      this.pending.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      this.worker!.postMessage({ id, event, requestId });
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }
}

