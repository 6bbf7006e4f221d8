/**
 * Pure Ed25519 (RFC 8032 §5.1), docs/PROTOCOL.md `Sign(sk, m)`: `publicKeyFromRaw`,
 * `privateKeyFromSeed`, `generateKeyPair`, `rawPublicKey`, `sign` and `verify`, with the key and
 * signature rules of curve.ts. Each platform has its own implementation behind
 * `#platform/ed25519` (package.json `imports`): node:crypto KeyObjects in ed25519node.ts, and
 * @noble/curves in ed25519browser.ts for the console, with the same verdicts.
 */
export * from '#platform/ed25519';
