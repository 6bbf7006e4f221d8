/**
 * Turns an HTTP request into the event API Gateway HTTP APIs send a Lambda (payload format
 * 2.0), so handlers run locally on exactly the input they get in AWS (docs/ARCHITECTURE.md, Local
 * stack: "turning each request into an API Gateway v2 event for the route's handler").
 *
 * Format 2.0 rules followed here (AWS docs, "Working with AWS Lambda proxy integrations for
 * HTTP APIs"):
 * - header names are lower case; repeated headers are joined with commas;
 * - the Cookie header is removed from `headers` and split into `cookies`;
 * - repeated query parameters are joined with commas in `queryStringParameters` (decoded);
 *   `rawQueryString` keeps the original;
 * - path parameters are URL-decoded;
 * - `queryStringParameters`, `pathParameters`, `cookies` and `body` are absent when empty;
 * - a body is a UTF-8 string for text media types and base64 (`isBase64Encoded`) otherwise.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

interface IncomingRequestFacts {
  method: string;
  /** The request target as received: path plus optional `?query`. */
  url: string;
  /** Node's `rawHeaders`: alternating names and values, in order, duplicates kept. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
  httpVersion: string;
  requestId: string;
  /** `METHOD /template`, or `$default` for the not-found handler. */
  routeKey: string;
  pathParameters?: Record<string, string>;
  now?: Date;
}

const TEXT_MEDIA_TYPE =
  /^(text\/[^;]+|application\/(json|[^;]+\+json|xml|[^;]+\+xml|javascript|x-www-form-urlencoded|graphql|x-ndjson))\s*(;|$)/i;

/** Whether API Gateway passes a body of this Content-Type as text rather than base64. */
export function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && TEXT_MEDIA_TYPE.test(contentType.trim());
}

function splitQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const joined = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    const values = joined.get(key) ?? [];
    values.push(value);
    joined.set(key, values);
  }
  if (joined.size === 0) return undefined;
  return Object.fromEntries([...joined].map(([key, values]) => [key, values.join(',')]));
}

/** CLF-style time as API Gateway writes it: `12/Mar/2020:19:03:58 +0000`. */
function requestTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

export function toApiGatewayEvent(request: IncomingRequestFacts): APIGatewayProxyEventV2 {
  const now = request.now ?? new Date();
  const queryAt = request.url.indexOf('?');
  const rawPath = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : request.url.slice(queryAt + 1);

  const headerValues = new Map<string, string[]>();
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase();
    const values = headerValues.get(name) ?? [];
    values.push(request.rawHeaders[i + 1]!);
    headerValues.set(name, values);
  }
  const cookies = (headerValues.get('cookie') ?? [])
    .flatMap((header) => header.split(';'))
    .map((cookie) => cookie.trim())
    .filter((cookie) => cookie !== '');
  headerValues.delete('cookie');
  const headers: Record<string, string> = {};
  for (const [name, values] of headerValues) headers[name] = values.join(',');

  const host = headers.host ?? 'localhost';
  const domainName = host.replace(/:\d+$/, '');
  const hasBody = request.body.length > 0;
  const text = isTextContentType(headers['content-type']);

  return {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: splitQuery(rawQueryString) } : {}),
    ...(request.pathParameters && Object.keys(request.pathParameters).length > 0
      ? { pathParameters: request.pathParameters }
      : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: request.requestId,
      routeKey: request.routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(hasBody ? { body: text ? request.body.toString('utf8') : request.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !text,
  };
}
