/**
 * GET /.well-known/service/jwks.json (docs/API.md §4.11, docs/PROTOCOL.md Receipt): the receipt
 * signing keys as OKP Ed25519 JWKs with RFC 7638 kids. The signer caches the key, so this
 * costs one KMS GetPublicKey per cold start; clients may cache the document for 5 minutes.
 */
import { publicRoutes } from '../../routes/route-table/public.js';
import { signer } from '../../runtime/signer.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(publicRoutes.jwks, async () => ({
  body: { keys: await signer().jwks() },
  headers: { 'cache-control': 'public, max-age=300' },
}));
