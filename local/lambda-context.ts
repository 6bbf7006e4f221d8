/**
 * A Lambda `Context` for handlers invoked in-process by the local stack: the fields handlers
 * and Powertools read (request id, function name, remaining time), with the route's or
 * worker's timeout as the deadline.
 */
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

const LOCAL_ACCOUNT = '000000000000';

export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
