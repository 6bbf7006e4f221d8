/**
 * One run of the exports worker in a process of its own, so that a test can kill it with
 * SIGKILL halfway through, as a Lambda crash or timeout would. The environment (table,
 * buckets, keys) is the test stack's, inherited; EXPORT_JOB holds the queue message body and
 * EXPORT_LAMBDA_SECONDS the run's Lambda timeout. It prints the handler's answer with the
 * process's peak resident set size (`max_rss_kb`, what the export benchmark reports).
 */
import { toSqsEvent } from '../../local/workers.js';
import { lambdaContext } from '../../local/lambda-context.js';
import { handler } from '../../lambdas/workers/export-files.js';

const body = process.env.EXPORT_JOB ?? '';
const seconds = Number(process.env.EXPORT_LAMBDA_SECONDS ?? '10');
const event = toSqsEvent('exports', [{ messageId: 'child-run', body, receiveCount: 1, sentAt: Date.now(), firstReceivedAt: Date.now() }]);
const result = await handler(event, lambdaContext('ExportFiles', seconds));
process.stdout.write(`${JSON.stringify({ ...result, max_rss_kb: process.resourceUsage().maxRSS })}\n`);
