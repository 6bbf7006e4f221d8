/**
 * The organization's append-only epoch log (docs/CHECKPOINTS.md): entries, the tree's frontier
 * and the C2SP signed checkpoints; the RFC 9162 consistency proofs between two of its sizes are
 * merkle/consistency.ts, exported beside this by index.ts.
 */
export * from './entry.js';
export * from './frontier.js';
export * from './checkpoint.js';
