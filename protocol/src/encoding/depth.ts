/**
 * The nesting limit of an operation record (docs/PROTOCOL.md, Operation record, "Nesting
 * limit"): the record object is level 1, the value of `subject`, `action` or `payload` is
 * level 2, and no object or array may sit at level 65 or deeper.
 *
 * Why a limit: every party that hashes a record (the service, the SDK, an auditor's
 * verifier in any language, a JSON export that adds its own levels around the record) must
 * be able to parse and canonicalize it. Parsers and recursive walkers give up somewhere
 * (Python's `json.load` near 1,000 levels, recursive JCS a few thousand), and a record that
 * one of them cannot read would make every export holding it unverifiable for good, since
 * records are never deleted. 64 levels is far more than any tool input needs and far below
 * what common parsers handle.
 *
 * The walk is iterative (an explicit stack), so it can measure input of any depth without
 * itself overflowing the call stack: it is the check that runs before anything recursive.
 */
import { ProtocolError } from '../errors/protocolerror.js';

/** Deepest level an object or array of a record may sit at; the record object is level 1. */
export const MAX_RECORD_DEPTH = 64;

/**
 * Deepest level in an export bundle file (docs/EXPORT.md): the file object is level 1 and a
 * record sits at level 5 (`body.operations[i].record`), so a bundle of records within
 * {@link MAX_RECORD_DEPTH} nests at most 4 levels more.
 */
export const MAX_BUNDLE_DEPTH = MAX_RECORD_DEPTH + 4;

/**
 * A record, or another JSON document, nests deeper than its limit. Code `NESTING_TOO_DEEP`.
 *
 * @example
 * try { assertRecordDepth(record); } catch (e) { if (e instanceof NestingTooDeepError) console.error(e.message); }
 */
export class NestingTooDeepError extends ProtocolError {
  constructor(message: string) {
    super('NESTING_TOO_DEEP', message);
    this.name = 'NestingTooDeepError';
  }
}

/** One container on the walk's stack, with the way back to the root for the message. */
type Node = { value: object; depth: number; parent: Node | null; key: string };

const SHOWN_KEY = 40;

function segment(key: string, parentIsArray: boolean): string {
  if (parentIsArray) return `[${key}]`;
  const shown = key.length > SHOWN_KEY ? `${key.slice(0, SHOWN_KEY)}…` : key;
  return /^[A-Za-z_$][\w$]*$/.test(shown) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
}

/** The first few steps of the path to `node`, e.g. `payload.a.a.a…` (the whole path can be 64 steps). */
function pathTo(node: Node, rootName: string): string {
  const steps: string[] = [];
  for (let at: Node | null = node; at !== null && at.parent !== null; at = at.parent) {
    steps.push(segment(at.key, Array.isArray(at.parent.value)));
  }
  steps.reverse();
  const shown = steps.slice(0, 4).join('');
  return `${rootName}${shown}${steps.length > 4 ? '…' : ''}`;
}

/**
 * The member of `value` (a parsed JSON value) that holds an object or array deeper than
 * `maxDepth` levels, where `value` itself is level 1; null when it nests no deeper.
 * Returns the first such container found in document order, as its path from the root.
 * Never recurses, so any depth is safe to measure.
 *
 * @example
 * deepestPathOver({ a: { b: [] } }, 2, 'body'); // 'body.a.b'
 * deepestPathOver({ a: { b: [] } }, 3, 'body'); // null
 */
export function deepestPathOver(value: unknown, maxDepth: number, rootName = '$'): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Node[] = [{ value, depth: 1, parent: null, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.depth > maxDepth) return pathTo(node, rootName);
    const container = node.value as Record<string, unknown>;
    const keys = Object.keys(container);
    // Pushed in reverse so that the first member is looked at first (document order).
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child = container[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: node.depth + 1, parent: node, key });
    }
  }
  return null;
}

/**
 * Why `record` breaks the nesting limit of docs/PROTOCOL.md, naming the member, or null when
 * it does not. `record` is the record object (level 1) as parsed; anything else is measured
 * the same way.
 *
 * @example
 * recordDepthProblem({ subject: {}, action: {}, payload: null }); // null
 */
export function recordDepthProblem(record: unknown): string | null {
  const path = deepestPathOver(record, MAX_RECORD_DEPTH, 'record');
  if (path === null) return null;
  const member = /^record\.(\w+)/.exec(path)?.[1];
  return (
    `${member === undefined ? 'the record' : `record member '${member}'`} nests deeper than ${MAX_RECORD_DEPTH} levels ` +
    `(an object or array at ${path} is at level ${MAX_RECORD_DEPTH + 1} or deeper; the record object is level 1; docs/PROTOCOL.md, Nesting limit)`
  );
}

/**
 * Throws {@link NestingTooDeepError} when `record` breaks the nesting limit; the SDK and the
 * CLI call it before signing, so that no record is signed that the service would refuse.
 *
 * @example
 * assertRecordDepth(unsigned); // throws for a payload nested 65 levels deep
 */
export function assertRecordDepth(record: unknown): void {
  const problem = recordDepthProblem(record);
  if (problem !== null) throw new NestingTooDeepError(problem);
}
