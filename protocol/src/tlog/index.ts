/** The organization's append-only epoch log (docs/CHECKPOINTS.md): entries, tree, checkpoints, proofs. */
export * from './entry.js';
export * from './frontier.js';
export * from './consistency.js';
export * from './checkpoint.js';
