/**
 * The RFC 3161 tokens of an export's anchors, checked against the time-stamping authority the
 * auditor trusts (`agent-ledger verify --tsa-ca FILE`, docs/EXPORT.md "Time-stamps"): the CMS
 * signature (RFC 5652 §5.6), the signed content type TSTInfo, the signer certificate's
 * critical timeStamping extended key usage (RFC 3161 §2.3), and its chain to one of the given
 * certificates, valid at the token's genTime (a TSA certificate may expire after it stamped).
 *
 * Why here and not in @agent-ledger/protocol: path validation and the CMS signature need
 * WebCrypto, which is asynchronous, and the protocol's verifier is synchronous and pure.
 * So the CLI checks every token first, with pkijs over Node's WebCrypto, and hands the
 * verdicts to verifyExportBundle (`timestampSignature`), which reports them per anchor next
 * to what it checks itself (the imprint, genTime = anchored_at, the lateness bound).
 */
import { webcrypto } from 'node:crypto';
import type * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { TIMESTAMP_OIDS, hasTimeStampingUsage } from '@agent-ledger/protocol';

const OID = TIMESTAMP_OIDS;

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });

/**
 * The certificates of a PEM file (one or more `BEGIN CERTIFICATE` blocks) or of one DER
 * certificate. Throws with a message for the person at the terminal.
 *
 * @example
 * const trusted = readCertificates(readFileSync('tsa-ca.pem'));
 */
export function readCertificates(file: Uint8Array): pkijs.Certificate[] {
  const text = Buffer.from(file).toString('latin1');
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
  const ders = blocks.length > 0 ? blocks : [Buffer.from(file)];
  return ders.map((der) => {
    try {
      return pkijs.Certificate.fromBER(der);
    } catch {
      throw new Error('not a PEM or DER X.509 certificate');
    }
  });
}

/**
 * Why the token (DER) is not signed by a TSA that chains to `trusted`, or null when it is.
 * Never throws.
 *
 * @example
 * await timestampSignatureProblem(b64Decode(anchor.tsa_token), trusted); // null
 */
export async function timestampSignatureProblem(token: Uint8Array, trusted: readonly pkijs.Certificate[]): Promise<string | null> {
  let signed: pkijs.SignedData;
  let genTime: Date;
  try {
    const info = pkijs.ContentInfo.fromBER(token);
    if (info.contentType !== OID.signedData) return 'the token is not CMS SignedData';
    signed = new pkijs.SignedData({ schema: info.content });
    const eContent = signed.encapContentInfo.eContent;
    if (signed.encapContentInfo.eContentType !== OID.tstInfo || !eContent) return 'the token does not encapsulate a TSTInfo';
    genTime = pkijs.TSTInfo.fromBER(eContent.getValue()).genTime;
  } catch {
    return 'the token does not parse as an RFC 3161 TimeStampToken';
  }
  const signerInfo = signed.signerInfos[0];
  if (signed.signerInfos.length !== 1 || !signerInfo) return 'the token must have exactly one signer';
  const contentType = signerInfo.signedAttrs?.attributes.find((attribute) => attribute.type === OID.contentTypeAttribute);
  if ((contentType?.values[0] as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() !== OID.tstInfo) {
    return 'the signed content-type attribute is not TSTInfo';
  }
  // pkijs's TSTInfo branch of verify() hashes a message to compare with the imprint; our
  // imprint is the Merkle root itself (docs/PROTOCOL.md "RFC 3161 anchor"), compared by the
  // protocol's verifier. As plain data, pkijs checks the signed attributes, the eContent
  // digest and the signature the same way.
  signed.encapContentInfo.eContentType = OID.data;
  let result: pkijs.SignedDataVerifyResult;
  try {
    result = await signed.verify({ signer: 0, checkChain: true, trustedCerts: [...trusted], checkDate: genTime, extendedMode: true }, engine);
  } catch (error) {
    const r = error as Partial<pkijs.SignedDataVerifyResult> & { message?: string };
    if (r.signatureVerified === false) return 'the CMS signature does not verify';
    if (r.signerCertificateVerified === false) return notChained(signed, genTime);
    return `the signature check failed: ${r.message ?? String(error)}`;
  }
  if (result.signatureVerified !== true) return 'the CMS signature does not verify';
  if (result.signerCertificateVerified !== true) return notChained(signed, genTime);
  if (!result.signerCertificate || !hasTimeStampingUsage(result.signerCertificate)) {
    return 'the signer certificate lacks the critical timeStamping extended key usage (RFC 3161 §2.3)';
  }
  return null;
}

/**
 * Why the signer did not chain: a certificate in the token that was not valid at genTime is
 * named as such (a token stamped by an expired TSA certificate proves no time), else the chain
 * to the certificates the auditor gave is missing.
 */
function notChained(signed: pkijs.SignedData, genTime: Date): string {
  for (const certificate of signed.certificates ?? []) {
    if (!(certificate instanceof pkijs.Certificate)) continue;
    const from = certificate.notBefore.value;
    const until = certificate.notAfter.value;
    if (genTime < from || genTime > until) {
      return `the TSA certificate was not valid at genTime ${genTime.toISOString()}: valid from ${from.toISOString()} until ${until.toISOString()}${genTime > until ? ' (expired)' : ''}`;
    }
  }
  return 'the signer certificate does not chain to the TSA certificate you gave (--tsa-ca), at genTime';
}

/**
 * The verdict of every anchor token of a parsed bundle, by its `tsa_token` text, for
 * verifyExportBundle's `timestampSignature` option.
 *
 * @example
 * const verdicts = await timestampVerdicts(JSON.parse(text), trusted);
 * verifyExportBundle(bytes, { jwks, timestampSignature: (t) => verdicts.get(t) });
 */
export async function timestampVerdicts(bundle: unknown, trusted: readonly pkijs.Certificate[]): Promise<Map<string, string | null>> {
  const verdicts = new Map<string, string | null>();
  const epochs = (bundle as { body?: { verification_material?: { epochs?: unknown } } })?.body?.verification_material?.epochs;
  if (!Array.isArray(epochs)) return verdicts;
  for (const entry of epochs as unknown[]) {
    const token = (entry as { anchor?: { tsa_token?: unknown } } | null)?.anchor?.tsa_token;
    if (typeof token !== 'string' || verdicts.has(token)) continue;
    let der: Buffer;
    try {
      der = Buffer.from(token, 'base64');
    } catch {
      continue; // the verifier reports the encoding
    }
    verdicts.set(token, await timestampSignatureProblem(der, trusted));
  }
  return verdicts;
}
