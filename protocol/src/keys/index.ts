/** Agent key history (docs/PROTOCOL.md "Key events") and pins; possession.ts is exported by core.ts, which the SDK loads. */
export * from './event.js';
export * from './history.js';
export * from './pins.js';
