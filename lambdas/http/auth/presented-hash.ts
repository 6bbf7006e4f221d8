/** The hash of the token a request presented (bearer or cookie), for routes that act on that very token. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { tokenHash } from '../../shared/token-format.js';
import { presentedToken } from '../authenticate.js';

export function presentedHash(event: APIGatewayProxyEventV2): string | undefined {
  const token = presentedToken(event);
  return token ? tokenHash(token) : undefined;
}
