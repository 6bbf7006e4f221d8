/**
 * `npm run rehearse`: synthesize the app and run it in its deployed shape (rehearsal.ts),
 * drive the scenario over HTTP (scenario.ts), call every route the scenario did not with an
 * anonymous request (each function is invoked at least once), then print one line per
 * function, the IAM and environment problems, and the least-privilege report. Exit 1 on any
 * problem.
 *
 *   npm run rehearse                         synth, rehearse, report
 *   npm run rehearse -- --cdk-out DIR        reuse an assembly synthesized before
 *   npm run rehearse -- -c receiptSigner=envelope   synthesize with CDK context over cdk.json's (repeatable)
 *   npm run rehearse -- --serve              keep the stack up: "rehearsal listening on http://127.0.0.1:PORT"
 *   npm run rehearse -- --against https://…  the scenario against a deployed stack (docs/DEPLOY.md)
 *
 * --serve honours PORT, LEDGER_DATA_DIR, LEDGER_EPOCH_MS, LEDGER_EPOCH_GRACE_MS,
 * LEDGER_WEBHOOK_ALLOW_LOOPBACK, LEDGER_RATE_LIMIT_RPS, LEDGER_TSA_URL and
 * LEDGER_CALLER_CACHE_MS as `npm start` does.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { ADDED_SETTINGS, MAPPED_SETTINGS, startRehearsal, type Rehearsal, type RehearsalOptions, type RehearsalReport } from './rehearsal.js';
import { runScenario } from './scenario.js';
import { synthesize } from './synth.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** The epoch the rehearsal's scenario seals within seconds, applied where the template sets these variables. */
const SCENARIO_SETTINGS = { LEDGER_EPOCH_MS: '4000', LEDGER_EPOCH_GRACE_MS: '1000', LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } as const;

/**
 * Prints the report. The least-privilege part (each function's unused grants: long, and
 * advice rather than a failure) goes to `leastPrivilegeFile`, with one line saying where, so
 * that the problems stay at the end of the output where a CI log's tail keeps them.
 */
function printReport(report: RehearsalReport, leastPrivilegeFile: string, print = out): void {
  print('');
  print('functions (each loaded from its bundle in cdk.out, Node ' + process.versions.node + '; Lambda runs nodejs22.x):');
  for (const fn of report.functions) {
    print(`  ${fn.id.padEnd(28)} ${fn.loaded ? 'loaded ' : 'NOT LOADED'}  invoked ${String(fn.invocations).padStart(3)}  calls ${String(fn.calls).padStart(4)}  denied ${fn.denied}`);
  }
  for (const skipped of report.skipped) print(`  skipped ${skipped.id}: ${skipped.reason}`);
  print('');
  print('rehearsal-only environment (added to every function; not in the template):');
  for (const [name, value] of Object.entries(report.rehearsalOnly)) print(`  ${name}=${value}`);
  print('  AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN: one key per function (Lambda gives the role\'s); the recording fronts tell the callers apart by it');
  for (const [name, value] of Object.entries(report.overridden)) print(`  ${name}=${value} (the template's value replaced for the rehearsal)`);
  print('');
  const unused = report.functions.filter((fn) => fn.unused.length > 0);
  const lines = ["least privilege: granted, and no call of the rehearsal used it (logs: and xray: are the Lambda runtime's):"];
  for (const fn of unused) lines.push(`  ${fn.id}: ${fn.unused.map((grant) => `${grant.action} ${grant.resource.replace(/^arn:aws:[^:]*:[^:]*:\d*:/, '')}`).join('; ')}`);
  mkdirSync(dirname(leastPrivilegeFile), { recursive: true });
  writeFileSync(leastPrivilegeFile, `${lines.join('\n')}\n`);
  print(`least privilege: ${unused.reduce((n, fn) => n + fn.unused.length, 0)} grants of ${unused.length} functions unused by the rehearsal, listed in ${leastPrivilegeFile}`);
  print('');
  if (report.problems.length === 0) {
    print(`rehearsal passed: ${report.functions.length} functions, 0 denied, 0 missing variables`);
  } else {
    print(`rehearsal FAILED: ${report.problems.length} problem(s)`);
    for (const problem of report.problems) print(`  ${problem.functionId}: ${problem.kind}: ${problem.message}`);
  }
}

/** Every route no request reached yet, once, without credentials: a 4xx is fine, a 5xx is a problem the report lists. */
async function invokeRemainingRoutes(rehearsal: Rehearsal, invoked: (functionId: string) => number): Promise<void> {
  for (const route of rehearsal.deployment.routes) {
    if (invoked(route.functionId) > 0) continue;
    const path = route.path === '$default' ? '/v1/no-such-route' : route.path.replace(/\{[^}]+\}/g, 'rehearsal');
    const method = route.method === 'ANY' ? 'GET' : route.method;
    await fetch(`${rehearsal.url}${path}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) }).then((res) => res.arrayBuffer());
  }
}

function settingsFromEnv(): RehearsalOptions['settings'] {
  const settings: Record<string, string> = {};
  for (const name of [...MAPPED_SETTINGS, ...ADDED_SETTINGS]) if (process.env[name]) settings[name] = process.env[name]!;
  return settings;
}

async function main(): Promise<void> {
  // Lambda runs Node 22; the SDK's notice about Node 20 concerns this machine only.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({
    options: { serve: { type: 'boolean' }, against: { type: 'string' }, 'cdk-out': { type: 'string' }, context: { type: 'string', short: 'c', multiple: true } },
  });
  if (values.against) {
    const url = values.against.replace(/\/$/, '');
    out(`scenario against ${url}`);
    await runScenario(url, {
      mailedCode: () => undefined,
      // The deployed schedule seals every 5 minutes; wait for it rather than invoke it.
      seal: () => new Promise((resolve) => setTimeout(resolve, 10_000)),
      sealTimeoutMs: 8 * 60_000,
      // SES's mailbox simulator accepts the verification mail without a bounce (plus-addressing keeps each run apart).
      emailAddress: (local) => `success+${local}@simulator.amazonses.com`,
      webhooks: false,
      log: out,
    });
    out('scenario passed');
    return;
  }
  const started = Date.now();
  let cdkOut = values['cdk-out'] ? resolve(values['cdk-out']) : undefined;
  if (!cdkOut) {
    mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
    cdkOut = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'rehearse-cdk.out-'));
    process.once('exit', () => rmSync(cdkOut!, { recursive: true, force: true }));
    const context = values.context ?? [];
    out(`synthesizing (cdk synth, bundles included${context.map((pair) => `, -c ${pair}`).join('')})…`);
    await synthesize(cdkOut, { bundle: true, context });
    out(`synthesized in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

  if (values.serve) {
    const dataDir = process.env.LEDGER_DATA_DIR ? resolve(process.env.LEDGER_DATA_DIR) : undefined;
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const settings = settingsFromEnv();
    const epochMs = Number(settings?.LEDGER_EPOCH_MS ?? 300_000);
    const rehearsal = await startRehearsal({
      cdkOut,
      port: process.env.PORT ? Number(process.env.PORT) : 3000,
      ...(dataDir ? { dataDir } : {}),
      settings,
      scheduleEveryMs: epochMs,
      // The mail log line of npm start's local identity provider (lambdas/adapters/local/local-identity-provider.ts).
      onMail: (mail) => out(JSON.stringify({ level: 'INFO', message: 'mail sent (rehearsal: cognito-local)', timestamp: new Date().toISOString(), service: 'agent-ledger', mail: { to: mail.to, subject: 'Verify your email address for agent-ledger', link: mail.link } })),
      onLog: (functionId, line) => process.stderr.write(`[${functionId}] ${line}\n`),
    });
    out(`rehearsal listening on ${rehearsal.url}`);
    const stop = () => {
      void rehearsal.report().then((report) => {
        printReport(report, join(PROJECT_ROOT, '.tmp', 'rehearse-least-privilege.txt'));
        return rehearsal.stop().then(() => process.exit(report.problems.length === 0 ? 0 : 1));
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }

  // The functions' own log lines (Powertools JSON), for the failures the report names.
  const logFile = join(PROJECT_ROOT, '.tmp', 'rehearse-functions.log');
  mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
  writeFileSync(logFile, '');
  const rehearsal = await startRehearsal({ cdkOut, settings: { ...SCENARIO_SETTINGS, ...settingsFromEnv() }, onLog: (functionId, line) => appendFileSync(logFile, `[${functionId}] ${line}\n`) });
  let failed = false;
  try {
    out(`rehearsal up at ${rehearsal.url} (${rehearsal.deployment.functions.length} functions loaded in ${((Date.now() - started) / 1000).toFixed(0)} s since start); scenario:`);
    await runScenario(rehearsal.url, {
      mailedCode: (email) => rehearsal.mailedCode(email),
      seal: async () => {
        await new Promise((resolve) => setTimeout(resolve, Number(SCENARIO_SETTINGS.LEDGER_EPOCH_MS)));
        await rehearsal.fireSchedules();
      },
      webhooks: true,
      sealTimeoutMs: 120_000,
      emailAddress: (local) => `${local}@example.com`,
      log: out,
    }).catch((error: Error) => {
      failed = true;
      out(`scenario FAILED: ${error.message}`);
    });
    const counts = new Map((await rehearsal.report()).functions.map((fn) => [fn.id, fn.invocations]));
    await invokeRemainingRoutes(rehearsal, (id) => counts.get(id) ?? 0);
    const report = await rehearsal.report();
    printReport(report, join(PROJECT_ROOT, '.tmp', 'rehearse-least-privilege.txt'));
    out(`the functions' logs: ${logFile}`);
    failed ||= report.problems.length > 0;
  } finally {
    await rehearsal.stop();
  }
  out(`npm run rehearse took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(failed ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`rehearse: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
