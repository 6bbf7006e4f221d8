/**
 * The two RFC 3161 messages the anchor needs: the TimeStampReq we send (§2.4.1) and the
 * checks on the TimeStampResp we get back (§2.4.2) before its token is stored as an epoch's
 * anchor (docs/PROTOCOL.md, RFC 3161 anchor). Pure ASN.1 work, no I/O.
 *
 * What is checked: status granted (0) or grantedWithMods (1); the token is CMS SignedData
 * over a TSTInfo; the TSTInfo's messageImprint is SHA-256 over exactly our digest and its
 * nonce is ours (§2.4.2: "MUST be equal"); the signer's certificate is among the certificates
 * the token carries (we ask with certReq), has the critical timeStamping extended key usage
 * (§2.3) and verifies the CMS signature (RFC 5652 §5.6). The chain to a trusted root is not
 * checked here: trust in the TSA is the verifier's decision (`openssl ts -verify -CAfile`).
 */
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { TIMESTAMP_OIDS, hasTimeStampingUsage } from '@agent-ledger/protocol';
import type { TimeStamp } from '../../domain/ports.js';

const OID = TIMESTAMP_OIDS;

/** An explicit engine over Node's WebCrypto, instead of pkijs's process-global default. */
type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });

/** A response that must not be stored; the message says which check failed. */
export class TimestampError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TimestampError';
  }
}

/** DER of `TimeStampReq { version 1, messageImprint (SHA-256, digest), nonce, certReq TRUE }`. */
export function timeStampRequest(sha256Digest: Uint8Array, nonce: bigint): Uint8Array {
  if (sha256Digest.byteLength !== 32) throw new TimestampError('a SHA-256 digest is 32 bytes');
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      // RFC 5754 §2: SHA-2 algorithm identifiers are generated with absent parameters.
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: sha256Digest }),
    }),
    nonce: asn1js.Integer.fromBigInt(nonce),
    // §2.4.1: the TSA then includes its certificate, which the signature check below needs.
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER());
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((value, index) => value === b[index]);
}

/** The token's own DER bytes, sliced from the response rather than re-encoded by pkijs. */
function tokenBytes(response: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(response);
  const sequence = parsed.result;
  if (parsed.offset === -1 || !(sequence instanceof asn1js.Sequence)) throw new TimestampError('response is not DER');
  const token = sequence.valueBlock.value[1];
  if (!token) throw new TimestampError('response has no timeStampToken');
  return new Uint8Array(token.valueBeforeDecodeView);
}

function parseResponse(der: Uint8Array): pkijs.TimeStampResp {
  try {
    return pkijs.TimeStampResp.fromBER(der);
  } catch (error) {
    throw new TimestampError('response is not a TimeStampResp', { cause: error });
  }
}

/** RFC 5652 §5.6 + §11.1: the signature verifies and the signed content-type attribute is TSTInfo. */
async function checkSignature(token: pkijs.ContentInfo): Promise<void> {
  const signed = new pkijs.SignedData({ schema: token.content });
  const signerInfo = signed.signerInfos[0];
  const contentType = signerInfo?.signedAttrs?.attributes.find((attribute) => attribute.type === OID.contentTypeAttribute);
  const signedType = (contentType?.values[0] as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString();
  if (signedType !== OID.tstInfo) throw new TimestampError('signed content-type attribute is not TSTInfo');
  // pkijs's TSTInfo branch of verify() wants the data whose hash is the imprint; our imprint
  // is the Merkle root itself (docs/PROTOCOL.md), which has no such message. The imprint was
  // compared above, so let pkijs verify the CMS signature as over any content: the signed
  // attributes (content type TSTInfo included) and the eContent digest are checked the same.
  signed.encapContentInfo.eContentType = OID.data;
  let result: pkijs.SignedDataVerifyResult;
  try {
    result = await signed.verify({ signer: 0, checkChain: false, extendedMode: true }, engine);
  } catch (error) {
    throw new TimestampError(`signature check failed: ${(error as Error).message}`, { cause: error });
  }
  if (result.signatureVerified !== true) throw new TimestampError('signature does not verify');
  if (!result.signerCertificate || !hasTimeStampingUsage(result.signerCertificate)) {
    throw new TimestampError('signer certificate lacks the critical timeStamping extended key usage');
  }
}

/**
 * Checks a TimeStampResp against the request made with `expected`; returns the token (DER)
 * and its genTime, or throws TimestampError naming the failed check.
 */
export async function checkTimeStampResponse(
  der: Uint8Array,
  expected: { sha256Digest: Uint8Array; nonce: bigint },
): Promise<TimeStamp> {
  const response = parseResponse(der);
  const status = response.status.status;
  // §2.4.2: granted (0) and grantedWithMods (1) carry a token; anything else is a refusal.
  if (status !== 0 && status !== 1) {
    const text = (response.status.statusStrings ?? []).map((s) => s.valueBlock.value).join('; ');
    throw new TimestampError(`TSA refused the request: status ${status}${text ? ` (${text})` : ''}`);
  }
  const token = response.timeStampToken;
  if (!token) throw new TimestampError('granted response without a timeStampToken');
  if (token.contentType !== OID.signedData) throw new TimestampError('timeStampToken is not SignedData');
  const signed = new pkijs.SignedData({ schema: token.content });
  if (signed.encapContentInfo.eContentType !== OID.tstInfo || !signed.encapContentInfo.eContent) {
    throw new TimestampError('timeStampToken does not encapsulate a TSTInfo');
  }
  let tstInfo: pkijs.TSTInfo;
  try {
    tstInfo = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
  } catch (error) {
    throw new TimestampError('TSTInfo does not parse', { cause: error });
  }
  const imprint = tstInfo.messageImprint;
  if (imprint.hashAlgorithm.algorithmId !== OID.sha256) throw new TimestampError('message imprint is not SHA-256');
  if (!equalBytes(new Uint8Array(imprint.hashedMessage.valueBlock.valueHexView), expected.sha256Digest)) {
    throw new TimestampError('message imprint does not match the request');
  }
  if (tstInfo.nonce?.toBigInt() !== expected.nonce) throw new TimestampError('nonce does not match the request');
  await checkSignature(token);
  return { token: tokenBytes(der), genTime: tstInfo.genTime.getTime() };
}
