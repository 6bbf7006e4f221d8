/**
 * The JSON bodies of each route, named by its operation id (the route table's `id`, which
 * the OpenAPI document and the generated types use), for the SDK and the console alike.
 */
import type { operations } from '../generated/api.js';

export type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON body of an operation's success answer (200 or 201). */
export type ResponseOf<Op extends keyof operations> = operations[Op]['responses'] extends infer R
  ? 200 extends keyof R
    ? JsonOf<R[200]>
    : 201 extends keyof R
      ? JsonOf<R[201]>
      : never
  : never;

/** The JSON request body of an operation. */
export type RequestOf<Op extends keyof operations> = JsonOf<NonNullable<operations[Op]['requestBody']>>;
