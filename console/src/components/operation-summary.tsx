/**
 * What a stored operation says happened, read from its `subject` and `action` (JSON-encoded
 * strings in the API's StoredOperation). The coding-tool hook writes `subject: {kind:
 * 'workspace', id: cwd}` and `action: {verb: toolName, target: command | file | URL}`
 * (docs/HOOKS.md); other clients may name an outcome in the action. Long text is cut short in
 * the list, whole on hover (`title`) and in the expandable details.
 */
import type { Schemas } from '../api/client.js';
import { recordSource, useIntegrationTypes } from './record-source.js';
import { Time } from './time.js';
import { Words } from './words.js';

type Stored = Pick<Schemas['StoredOperation'], 'operation_type' | 'subject' | 'action' | 'agent_id'>;

interface Summary {
  /** The tool or verb: action.verb, else the operation type. */
  verb: string;
  target: string | undefined;
  /** The workspace (a hook's working directory) or another subject as "kind id". */
  workspace: string | undefined;
  outcome: string | undefined;
}

const MAX = 60;
/** Fields a record may name its outcome with, in the order they are preferred. */
const OUTCOME_FIELDS = ['outcome', 'result', 'status', 'exit_code'] as const;

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // A subject or action that is not JSON (older clients) is shown as it is stored, elsewhere.
    return {};
  }
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `integrationType`: the agent's (record-source.ts); without it no outcome is assumed. */
export function summarize(op: Stored, integrationType?: string): Summary {
  const action = parseObject(op.action);
  const subject = parseObject(op.subject);
  const kind = text(subject.kind);
  const id = text(subject.id);
  const named = OUTCOME_FIELDS.map((field) => (action[field] === undefined ? undefined : `${field === 'exit_code' ? 'exit code ' : ''}${text(action[field])}`)).find(
    (value) => value !== undefined,
  );
  return {
    verb: text(action.verb) ?? op.operation_type,
    target: text(action.target),
    workspace: kind === 'workspace' ? id : kind || id ? [kind, id].filter(Boolean).join(' ') : undefined,
    // A hook's tool.invoke is recorded before the tool runs, and only an allowed call is
    // recorded; other clients' records say nothing of what became of the action.
    outcome: named ?? (recordSource(op, subject, action, integrationType) === 'hook' ? 'allowed by the hook' : undefined),
  };
}

/** `value` cut to `max` characters with an ellipsis; the whole value on hover. */
function Truncated({ value, max = MAX }: { value: string | undefined; max?: number }) {
  if (value === undefined) return <span class="muted">—</span>;
  const short = value.length > max ? `${value.slice(0, max - 1)}…` : value;
  return (
    <code class="truncated" title={value}>
      <Words text={short} />
    </code>
  );
}

/** The tool or verb and its target, expandable to everything the summary holds, whole. */
export function WhatHappened({ summary }: { summary: Summary }) {
  return (
    <details class="what">
      <summary>
        <strong class="verb">{summary.verb}</strong> <Truncated value={summary.target} />
      </summary>
      <dl class="facts">
        <dt>Target</dt>
        <dd>{summary.target === undefined ? <span class="muted">none</span> : <code class="whole">
              <Words text={summary.target} />
            </code>}</dd>
        <dt>Workspace</dt>
        <dd>{summary.workspace === undefined ? <span class="muted">none</span> : <code class="whole">{summary.workspace}</code>}</dd>
        <dt>Outcome</dt>
        <dd>{summary.outcome ?? <span class="muted">not recorded</span>}</dd>
      </dl>
    </details>
  );
}

/** The three table cells every operations list shares: what happened, where, and how it ended. */
function SummaryCells({ op }: { op: Stored }) {
  const summary = summarize(op, useIntegrationTypes().get(op.agent_id));
  return (
    <>
      <td class="summary">
        <WhatHappened summary={summary} />
      </td>
      <td>
        <Truncated value={summary.workspace} max={40} />
      </td>
      <td>{summary.outcome ?? <span class="muted">—</span>}</td>
    </>
  );
}

const SUMMARY_COLUMNS = ['Tool or verb and target', 'Workspace', 'Outcome'];

/** The columns of {@link OperationCells}, in order. */
export const OPERATION_COLUMNS = ['Received', 'Type', ...SUMMARY_COLUMNS, 'Agent', 'seq_no'];

/** One operation's cells in every operations table: when, its type (linking to it), what happened, who, where in its chain. */
export function OperationCells({ op }: { op: Schemas['StoredOperation'] }) {
  return (
    <>
      <td>
        <Time ms={op.created_at} />
      </td>
      <td>
        <a href={`/operations/${op.operation_id}`}>{op.operation_type}</a>
      </td>
      <SummaryCells op={op} />
      <td>{op.agent_id}</td>
      <td>{op.seq_no}</td>
    </>
  );
}
