/**
 * The structured logger (Powertools for AWS Lambda, DESIGN.md "Logs and metrics"): JSON
 * lines with the request id on each. Never log tokens, secrets or payloads.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger',
});
