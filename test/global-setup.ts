/**
 * Vitest globalSetup: one DynamoDB Local (in memory) and one s3rver for the whole run
 * (docs/ARCHITECTURE.md, Conventions: "Integration tests run against DynamoDB Local, never against a
 * mocked table"). Starting the JVM once saves ~2 s per test file; files stay independent
 * by using their own table and buckets (test/support/test-stack.ts). The JVM runs under the
 * watchdog, so even a killed vitest leaves no Java behind.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../local/dynamodb-local.js';
import { startS3Local } from '../local/s3-local.js';
import { removeWhenGone } from '../local/watchdog.js';
import { processGroupCpuSeconds } from '../scripts/cpu-time.js';
import { sharedAcrossProjects } from './support/shared-across-projects.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local endpoint shared by all test files. */
    dynamoEndpoint: string;
    /** s3rver endpoint shared by all test files. */
    s3Endpoint: string;
    /** A directory for what several test files build once per run (test/support/once-per-run.ts). */
    runScratch: string;
  }
}

interface Engines {
  dynamoEndpoint: string;
  s3Endpoint: string;
  runScratch: string;
  stop(): Promise<void>;
}

/**
 * The serial collector: on two cores the JVM spends about a fifth less CPU on the whole run with
 * it than with the default G1 (340 s against 428 s; `npm test` took 781 s against 861 s), whose
 * concurrent and parallel work competes with the test workers for the same cores. Keeping only
 * the C1 compiler (-XX:TieredStopAtLevel=1) halves the CPU of a short run but costs more over a
 * whole one (458 s): its slower code loses to C2's over fourteen minutes.
 */
const TEST_JVM_OPTIONS = ['-XX:+UseSerialGC'];

async function startEngines(): Promise<Engines> {
  // s3rver's objects go to a scratch dir that a guard process deletes even if vitest is killed.
  const scratch = await mkdtemp(join(tmpdir(), 'ledger-test-s3-'));
  const guard = removeWhenGone(scratch);
  const runScratch = await mkdtemp(join(tmpdir(), 'ledger-test-run-'));
  const runGuard = removeWhenGone(runScratch);
  const [dynamo, s3] = await Promise.allSettled([startDynamoDbLocal({ inMemory: true, readyTimeoutMs: 120_000, jvmOptions: TEST_JVM_OPTIONS }), startS3Local({ directory: scratch })]);
  if (dynamo.status === 'rejected' || s3.status === 'rejected') {
    if (dynamo.status === 'fulfilled') await dynamo.value.stop();
    if (s3.status === 'fulfilled') await s3.value.stop();
    await Promise.all([guard.release(), runGuard.release()]);
    throw dynamo.status === 'rejected' ? dynamo.reason : (s3 as PromiseRejectedResult).reason;
  }
  return {
    dynamoEndpoint: dynamo.value.endpoint,
    s3Endpoint: s3.value.endpoint,
    runScratch,
    stop: async () => {
      reportEngineCpu(dynamo.value.pid);
      await Promise.all([dynamo.value.stop(), s3.value.stop()]);
      await Promise.all([guard.release(), runGuard.release()]);
    },
  };
}

/**
 * What DynamoDB Local's JVM spent in CPU over the run, for the table of `npm test` (scripts/test.ts
 * names the file in LEDGER_TEST_ENGINES_CPU): the engine serves every test file's requests, and
 * on two cores it takes about a third of them.
 */
function reportEngineCpu(dynamoGroup: number): void {
  const file = process.env.LEDGER_TEST_ENGINES_CPU;
  if (!file) return; // a run not started by `npm test`: nobody reads it, so /proc is not scanned
  const seconds = processGroupCpuSeconds(dynamoGroup);
  if (seconds !== undefined) writeFileSync(file, JSON.stringify({ dynamoDbLocalSeconds: seconds }));
}

/** Every project that lists this setup shares the run's one set of engines (support/shared-across-projects.ts). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value: engines, release } = await sharedAcrossProjects('engines', startEngines, (engines) => engines.stop());
  project.provide('dynamoEndpoint', engines.dynamoEndpoint);
  project.provide('s3Endpoint', engines.s3Endpoint);
  project.provide('runScratch', engines.runScratch);
  return release;
}
