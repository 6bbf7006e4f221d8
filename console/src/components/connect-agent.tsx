/**
 * The way forward when an organization has no agent yet: installing the CLI from this service
 * (its tarball's URL and SHA-256 from /client/index.json, served-client.ts), then the two CLI
 * commands that connect a coding agent (docs/HOOKS.md), with this service's URL filled in and the
 * tool picked from the 15 flags the CLI knows (client/src/tools/flags.ts, the one list), each
 * with a copy button; a link to create the API token `login` asks for; the Python package's wheel
 * beside it; and, by polling the audit query, word of the first record once it arrives.
 */
import { useEffect, useState } from 'preact/hooks';
import { TOOL_FLAGS, TOOL_NAMES, type ToolFlag } from '../../../client/src/tools/flags.js';
import { api, call, type Schemas } from '../api/client.js';
import { CopyButton } from './copy.js';
import { npmInstall, pipInstall, useServedClient, type ServedClient, type ServedFile } from './served-client.js';
import { summarize } from './operation-summary.js';

const FIRST_MS = 3_000;
const LONGEST_MS = 15_000;

function Command({ text, label }: { text: string; label: string }) {
  return (
    <div class="command">
      <pre>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={label} />
    </div>
  );
}

/** The file's SHA-256, which `agent-ledger doctor` (or `sha256sum`) checks a download against. */
function Digest({ file }: { file: ServedFile }) {
  return (
    <p class="digest">
      SHA-256 of {file.name}: <code>{file.sha256}</code>
    </p>
  );
}

function InstallCli({ served }: { served: ServedClient }) {
  if (served.state === 'loading') return <p class="muted">Looking up the CLI this service hands out…</p>;
  if (served.state === 'missing' || !served.npm) {
    return <p class="muted">This service does not hand out its CLI (no /client/index.json): install agent-ledger as its operator tells you.</p>;
  }
  return (
    <>
      <Command text={npmInstall(served.npm)} label="the npm install command" />
      <Digest file={served.npm} />
    </>
  );
}

/** Polls for the organization's first operation (backing off, paused while the tab is hidden). */
function useFirstRecord(): Schemas['StoredOperation'] | undefined {
  const [first, setFirst] = useState<Schemas['StoredOperation'] | undefined>(undefined);
  useEffect(() => {
    let delay = FIRST_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      clearTimeout(timer);
      if (!stopped && !document.hidden) timer = setTimeout(poll, delay);
    };
    async function poll() {
      try {
        const answer = await call(api.POST('/v1/audit/query', { body: { limit: 1 } }));
        if (stopped) return;
        if (answer.operations[0]) {
          setFirst(answer.operations[0]);
          return;
        }
      } catch {
        // A failed poll is retried later; the commands above stay usable meanwhile.
      }
      delay = Math.min(delay * 2, LONGEST_MS);
      schedule();
    }
    const onVisibility = () => {
      delay = FIRST_MS;
      schedule();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, []);
  return first;
}

export function ConnectAgent({ canCreateToken, canQuery }: { canCreateToken: boolean; canQuery: boolean }) {
  const [tool, setTool] = useState<ToolFlag>('claudecode');
  const served = useServedClient();
  const login = `agent-ledger login --url ${location.origin}`;
  const init = `agent-ledger agent init --tool ${tool}`;
  const wheel = served.state === 'served' ? served.wheel : undefined;
  return (
    <section class="connect" aria-labelledby="connect-agent">
      <h2 id="connect-agent">Connect an agent</h2>
      <ol>
        <li>
          Install the CLI from this service (Node.js 20 or later) on the machine where the coding tool runs; <code>agent-ledger doctor</code> checks it
          against this SHA-256 later:
          <InstallCli served={served} />
        </li>
        <li>
          {canCreateToken ? <a href="/tokens">Create an API token</a> : 'Ask an owner or security admin for an API token'}; <code>login</code> asks for it and
          keeps it outside the command line.
        </li>
        <li>
          Store this service’s URL and the token on that machine:
          <Command text={login} label="the login command" />
        </li>
        <li>
          <label>
            Coding tool
            <select value={tool} onChange={(e) => setTool(e.currentTarget.value as ToolFlag)}>
              {TOOL_FLAGS.map((flag) => (
                <option key={flag} value={flag}>
                  {TOOL_NAMES[flag]} ({flag})
                </option>
              ))}
            </select>
          </label>
          Register the agent and install its hook, so every tool call is recorded before it runs:
          <Command text={init} label="the agent init command" />
        </li>
      </ol>
      {wheel && (
        <div class="python-client">
          <h3>Python agents and auditors</h3>
          <p>The Python SDK and export verifier (Python 3.11 or later), from this service too:</p>
          <Command text={pipInstall(wheel)} label="the pip install command" />
          <Digest file={wheel} />
        </div>
      )}
      {canQuery && <FirstRecord />}
    </section>
  );
}

function FirstRecord() {
  const first = useFirstRecord();
  const summary = first && summarize(first);
  return (
    <p role="status" aria-live="polite" class={first ? 'first-record' : 'muted'}>
      {first && summary ? (
        <>
          The first record arrived: <strong>{summary.verb}</strong> {summary.target} from agent {first.agent_id}.{' '}
          <a href={`/operations/${first.operation_id}`}>Open it</a>
        </>
      ) : (
        'Waiting for the first record; this page tells you when it arrives.'
      )}
    </p>
  );
}
