/**
 * The client's address as API Gateway saw it (requestContext.http.sourceIp; the local server
 * fills it from the socket), for per-address limits. Never X-Forwarded-For, which the client
 * writes itself.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export function clientAddress(event: APIGatewayProxyEventV2): string | undefined {
  return event.requestContext?.http?.sourceIp || undefined;
}
