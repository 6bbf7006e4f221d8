/**
 * The report's words (report.ts draws them): the cover's facts, how to verify the export, and
 * in plain sentences what it proves. Pure, so the rendered pages can be held to them: every
 * word drawn once, none lost (test/integration/export-pdf-pages.test.ts).
 */
import { b64uDecode, type ExportBundle, type ExportVerificationReport } from '@agent-ledger/protocol';

export const iso = (ms: number) => new Date(ms).toISOString();

/** 64 hex digits as eight groups of eight, so that a person can compare them group by group. */
const grouped = (hex: string) => hex.replace(/(.{8})(?=.)/g, '$1 ');

interface CoverFacts {
  lines: { label: string; value: string }[];
  hashes: { label: string; value: string; note: string }[];
  verdict: { label: string; value: string; valid: boolean };
}

export function coverFacts(input: { bundle: ExportBundle; report: ExportVerificationReport; organizationName: string | null; fileSha256: string; fileBytes: number; attachmentName: string }): CoverFacts {
  const { bundle, report } = input;
  const { export: header, summary } = bundle.body;
  return {
    lines: [
      { label: 'Organization', value: input.organizationName === null ? header.org_id : `${input.organizationName} (${header.org_id})` },
      { label: 'Export', value: `${header.export_id} (requested as ${header.format}; payloads ${header.include_payloads ? 'included' : 'left out'})` },
      { label: 'Range (created_at)', value: `${iso(header.query.start_time)} (inclusive) to ${iso(header.query.end_time)} (exclusive)` },
      { label: 'Filters', value: `agent_id: ${header.query.agent_id ?? 'any'}; operation_type: ${header.query.operation_type ?? 'any'}` },
      {
        label: 'Counts',
        value: `${summary.operations} operations of ${summary.agents} agents; ${summary.agent_keys} agent keys; ${summary.epochs} epochs (${report.counts.anchored_epochs} anchored); ${summary.proofs} inclusion proofs; ${summary.payloads} payloads`,
      },
      { label: 'Generated', value: iso(header.generated_at) },
    ],
    hashes: [
      {
        label: 'Bundle body SHA-256',
        value: grouped(Buffer.from(b64uDecode(bundle.manifest.body_sha256)).toString('hex')),
        note: `manifest body_sha256, signed by service key ${bundle.manifest.service_kid}`,
      },
      {
        label: 'Attached file SHA-256',
        value: grouped(input.fileSha256),
        note: `of ${input.attachmentName}, ${input.fileBytes} bytes: compare it with sha256sum of the saved attachment`,
      },
    ],
    verdict: {
      label: 'Checked when made',
      valid: report.valid,
      value: report.valid
        ? `the embedded bundle was self-consistent: ${report.totals.passed} checks passed, ${report.totals.not_covered} not covered (against the bundled JWKS: re-check it with yours, next page)`
        : report.cannot_process !== null
          ? `the embedded bundle could NOT be checked (${report.cannot_process})`
          : `the embedded bundle did NOT verify: ${report.totals.failed} ${report.totals.failed === 1 ? 'check' : 'checks'} failed`,
    },
  };
}

/** The cover's steps, one paragraph each. */
export function howToVerify(attachmentName: string): string[] {
  return [
    `This PDF embeds the export bundle as the file attachment ${attachmentName}: the evidence, not this report, is what proves the records.`,
    'With the agent-ledger CLI: agent-ledger verify this.pdf --jwks jwks.json --tsa-ca tsa-ca.pem, where jwks.json is the service\'s JWKS fetched yourself from GET /.well-known/service/jwks.json of the deployment, and tsa-ca.pem the certificate the time-stamping authority publishes. It checks the bundle and these pages (the service signed this file). Exit 0: verified; 1: a check failed; 3: not checked against your keys.',
    'By hand: save the attachment (any PDF reader, or pdfdetach -saveall), check its SHA-256 against the one above, then follow docs/EXPORT.md "Verifying by hand": the manifest signature, each record signature, chain links, receipts, Merkle proofs, RFC 3161 anchors.',
  ];
}

/** The second page: what was verified and what is left to the reader, one paragraph each. */
export function whatItProves(bundle: ExportBundle, report: ExportVerificationReport): string[] {
  const { export: header, summary } = bundle.body;
  const filtered = header.query.operation_type !== null || header.query.agent_id !== null;
  const anchored = report.counts.anchored_epochs;
  return [
    report.valid
      ? `Each of the ${summary.operations} operations was signed by its agent's own key; the signature, the agent's hash chain (each record names the hash of the one before), the service's signed receipt and, once sealed, the Merkle proof into its epoch were checked when this file was made.`
      : `For each of the ${summary.operations} operations, the signature by its agent's own key, the agent's hash chain (each record names the hash of the one before), the service's signed receipt and, once sealed, the Merkle proof into its epoch were checked when this file was made, and not every check passed: the cover says how many failed, and agent-ledger verify names each.`,
    filtered
      ? `This export was filtered (agent_id: ${header.query.agent_id ?? 'any'}; operation_type: ${header.query.operation_type ?? 'any'}). ${header.query.operation_type !== null ? 'Gaps in each chain are expected, so chains were not checked for completeness. ' : 'Each agent chain was checked for gaps. '}Epochs were not checked for completeness (their other leaves belong to operations the filter leaves out).`
      : 'No filter applies: each agent chain was checked to have no gap between its first and last operation in the range, and every epoch inside the range to have all of its leaves here (its leaf count is fixed by its signed root), so nothing between them was left out.',
    'The Payload column of the operations table says what became of each payload: present (it hashes to the payload_hash the agent signed), erased (by an owner, through the service, which marks an erasure before it deletes anything), or left out (an export made without payloads). MISSING or ALTERED, in red, is a payload the service did not erase whose stored copy was gone or no longer hashed to payload_hash: it was destroyed in storage, and the export does not verify.',
    `${summary.epochs} epochs hold the proofs; ${anchored} of them ${anchored === 1 ? 'is' : 'are'} time-stamped by an RFC 3161 authority, which fixes when their root existed. A time-stamp more than 24 hours after its window ended is reported as late.`,
    "What this file alone cannot prove: that the service keys are the service's (check them against the JWKS you fetch yourself), and that the time-stamping authority is one you trust (check its certificate). agent-ledger verify does both with --jwks and --tsa-ca.",
    'These pages are signed too: the service signs the bytes of this whole PDF, pages and attachment, and agent-ledger verify checks that signature, so a page painted over or a row removed fails at "pages".',
  ];
}
