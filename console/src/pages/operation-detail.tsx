/**
 * One operation: the record as stored, its payload and signed receipt, and every check
 * recomputed in this browser (verify/checks.ts) next to the service's own verdict.
 */
import type { InclusionProof, Jwk } from '@agent-ledger/protocol';
import { ApiError, api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm.js';
import { ShortId } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { Loaded, useResource } from '../components/states.js';
import { Time } from '../components/time.js';
import type { Check, StoredRow } from '../verify/checks.js';
import { useSession } from '../session.js';

/**
 * The payload, or who erased it, when and why; an owner may erase it (docs/API.md §4.5
 * erase-payload): the stored copy goes, payload_hash and every proof stay.
 */
function Payload({
  got,
  onErased,
}: {
  got: { operation: { operation_id: string }; payload?: unknown; payload_erased?: { by: string; at: number; reason: string } };
  onErased: () => void;
}) {
  const { can } = useSession();
  const erased = got.payload_erased;
  if (erased) {
    return (
      <p class="muted" data-erased>
        Erased by {erased.by} on <Time ms={erased.at} />: {erased.reason}. The signature, chain, receipt and Merkle proof still verify (the record binds the
        payload through payload_hash only).
      </p>
    );
  }
  if (!('payload' in got)) {
    return (
      <p class="error" data-destroyed>
        Missing: the payload is neither stored nor erased. Its stored copy was deleted or damaged in storage, so the agent signature check fails.
      </p>
    );
  }
  return (
    <>
      <Json label="Payload">{pretty(got.payload)}</Json>
      {can('POST /v1/operations/{operation_id}/erase-payload') && (
        <ConfirmButton
          label="Erase payload"
          title="Erase this operation's payload for good?"
          confirmLabel="Erase payload"
          askReason
          danger
          onConfirm={(reason) =>
            call(api.POST('/v1/operations/{operation_id}/erase-payload', { params: { path: { operation_id: got.operation.operation_id } }, body: { reason } })).then(onErased)
          }
        >
          <p>The stored payload is deleted (for a leaked secret, or a deletion request). The record, its signature, its chain link, its receipt and its Merkle proof stay and keep verifying; exports mark the payload as erased, with your reason.</p>
        </ConfirmButton>
      )}
    </>
  );
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** JSON in a scrollable block that the keyboard can reach (and scroll) too. */
function Json({ label, children }: { label: string; children: string }) {
  return (
    <pre tabIndex={0} aria-label={label}>
      {children}
    </pre>
  );
}

function prettyJsonText(text: string): string {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

async function agentKey(agentId: string, kid: string): Promise<string | null> {
  try {
    const detail = await call(api.GET('/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } }));
    return detail.keys.find((key) => key.kid === kid)?.public_key ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Gathers the evidence piece by piece from the API and checks it here (verify/checks.ts, loaded on demand). */
async function verifyHere(operationId: string) {
  const [got, jwks, serverVerdict, { verifyEvidence }] = await Promise.all([
    call(api.GET('/v1/operations/{operation_id}', { params: { path: { operation_id: operationId } } })),
    call(api.GET('/.well-known/service/jwks.json')),
    call(api.POST('/v1/operations/{operation_id}/verify', { params: { path: { operation_id: operationId } } })),
    import('../verify/checks.js'),
  ]);
  const row = got.operation as StoredRow;
  const proof = serverVerdict.proof as InclusionProof | undefined;
  const [publicKey, previous, epoch] = await Promise.all([
    agentKey(row.agent_id, row.agent_pubkey_kid),
    got.previous_operation_id
      ? call(api.GET('/v1/operations/{operation_id}', { params: { path: { operation_id: got.previous_operation_id } } })).then((p) => p.operation as StoredRow)
      : Promise.resolve(null),
    proof ? call(api.GET('/v1/epochs/{epoch_id}', { params: { path: { epoch_id: proof.epoch_id } } })) : Promise.resolve(undefined),
  ]);
  const checks = verifyEvidence({
    row,
    hasPayload: 'payload' in got,
    erased: got.payload_erased !== undefined,
    ...('payload' in got ? { payload: got.payload } : {}),
    publicKey,
    previous,
    signedReceipt: got.signed_receipt,
    jwks: jwks as unknown as { keys: Jwk[] },
    ...(proof ? { proof } : {}),
    ...(epoch ? { epoch: epoch.epoch, anchor: epoch.anchor } : {}),
  });
  return { got, checks, serverVerdict };
}

const STATUS_TEXT: Record<Check['status'], string> = { passed: 'Passed', failed: 'Failed', pending: 'Not yet' };

function Checks({ checks }: { checks: Check[] }) {
  const failed = checks.filter((c) => c.status === 'failed').length;
  return (
    <section aria-labelledby="checks">
      <h2 id="checks">Verified in this browser</h2>
      <p role="status" class={failed ? 'error' : 'notice'}>
        {failed ? `${failed} check${failed > 1 ? 's' : ''} failed.` : 'Every check that applies passed.'}
      </p>
      <ul class="checks">
        {checks.map((check) => (
          <li key={check.id} class={`check check-${check.status}`} data-check={check.id}>
            <span class="check-status">{STATUS_TEXT[check.status]}</span>
            <span class="check-label">{check.label}</span>
            <span class="check-reason">{check.reason}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function OperationDetailPage({ operation_id }: { operation_id: string }) {
  const result = useResource(() => verifyHere(operation_id), [operation_id]);
  return (
    <>
      <PageTitle title="Operation">
        {result.data && (
          <button type="button" onClick={result.reload}>
            Verify again
          </button>
        )}
      </PageTitle>
      <p>
        <a href="/operations">Operations</a>
      </p>
      <Loaded resource={result} what="and verifying the operation">
        {({ got, checks, serverVerdict }) => (
          <>
            <dl class="facts">
              <dt>Operation id</dt>
              <dd>
                <ShortId value={got.operation.operation_id} label="operation id" head={36} />
              </dd>
              <dt>Type</dt>
              <dd>
                <code>{got.operation.operation_type}</code>
              </dd>
              <dt>Agent</dt>
              <dd>
                <a href={`/agents/${encodeURIComponent(got.operation.agent_id)}`}>{got.operation.agent_id}</a>, seq_no {got.operation.seq_no}
              </dd>
              <dt>Issued</dt>
              <dd>
                <Time ms={got.operation.issued_at} /> (valid {got.operation.ttl_ms} ms)
              </dd>
              <dt>Received</dt>
              <dd>
                <Time ms={got.operation.created_at} />
              </dd>
              <dt>Chain hash</dt>
              <dd>
                <ShortId value={got.operation.chain_hash} label="chain hash" />
              </dd>
            </dl>
            <Checks checks={checks} />
            <p class="muted">
              The service’s own verify answer, for comparison: {serverVerdict.valid ? 'valid' : 'not valid'} (
              {Object.entries(serverVerdict.checks)
                .map(([name, ok]) => `${name} ${ok ? 'true' : 'false'}`)
                .join(', ')}
              ).
            </p>
            <div class="columns">
              <section aria-labelledby="record">
                <h2 id="record">Record</h2>
                <h3>Subject</h3>
                <Json label="Subject">{prettyJsonText(got.operation.subject)}</Json>
                <h3>Action</h3>
                <Json label="Action">{prettyJsonText(got.operation.action)}</Json>
                <h3>Payload</h3>
                <Payload got={got} onErased={result.reload} />
              </section>
              <section aria-labelledby="receipt">
                <h2 id="receipt">Receipt</h2>
                {got.signed_receipt ? <Json label="Signed receipt">{pretty(got.signed_receipt)}</Json> : <p class="muted">No receipt stored.</p>}
              </section>
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}
