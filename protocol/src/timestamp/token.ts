/**
 * Reads what an RFC 3161 TimeStampToken attests, without judging who signed it: the
 * message imprint and the time (RFC 3161 §2.4.2). That is the part of an epoch anchor
 * (docs/PROTOCOL.md "RFC 3161 anchor") an offline verifier can check on its own: the imprint's
 * algorithm must be SHA-256 and its hashedMessage exactly the epoch's root bytes (the root is
 * not hashed again). Whether the signature chains to a time-stamping authority you trust is
 * checked against the certificate you give (`agent-ledger verify --tsa-ca`,
 * client/src/verify/timestamp-signature.ts) or with `openssl ts -verify` (docs/EXPORT.md
 * "Time-stamps", "Verifying by hand").
 *
 * asn1js (pure JavaScript, runs in a browser) decodes the DER; the structure walk is ours:
 *
 *   ContentInfo ::= SEQUENCE { contentType id-signedData, content [0] EXPLICIT SignedData }   RFC 5652 §3
 *   SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, ... }       RFC 5652 §5.1
 *   EncapsulatedContentInfo ::= SEQUENCE { eContentType id-ct-TSTInfo, eContent [0] EXPLICIT OCTET STRING }
 *   TSTInfo ::= SEQUENCE { version, policy, messageImprint, serialNumber, genTime, ... }    RFC 3161 §2.4.2
 *   MessageImprint ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, hashedMessage OCTET STRING }
 */
import * as asn1js from 'asn1js';
import { ProtocolError } from '../errors/protocolerror.js';
import { TIMESTAMP_OIDS } from './oids.js';

const OID = TIMESTAMP_OIDS;

/** The attested facts of a time-stamp token. */
export type TimeStampTokenInfo = {
  /** Dotted OID of messageImprint.hashAlgorithm (`2.16.840.1.101.3.4.2.1` is SHA-256). */
  hash_algorithm: string;
  /** messageImprint.hashedMessage. */
  hashed_message: Uint8Array;
  /** genTime in Unix ms (a fraction below one millisecond is dropped). */
  gen_time: number;
  /** serialNumber, as lowercase hex. */
  serial_number: string;
  /** policy OID. */
  policy: string;
};

/** OID of SHA-256 (RFC 5754 §2), the only imprint algorithm docs/PROTOCOL.md uses. */
export const SHA256_OID = OID.sha256;

function fail(message: string): never {
  throw new ProtocolError('INVALID_TIMESTAMP_TOKEN', message);
}

function decode(der: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1) fail(`${what} is not DER`);
  if (parsed.offset !== der.byteLength) fail(`${what} has trailing bytes`);
  return parsed.result;
}

function children(node: asn1js.AsnType | undefined, what: string): asn1js.AsnType[] {
  if (!(node instanceof asn1js.Sequence)) fail(`${what} is not a SEQUENCE`);
  return node.valueBlock.value;
}

/** `[0] EXPLICIT inner`: the one element inside the context-specific tag 0. */
function explicit0(node: asn1js.AsnType | undefined, what: string): asn1js.AsnType {
  const id = node?.idBlock;
  if (!(node instanceof asn1js.Constructed) || id?.tagClass !== 3 || id.tagNumber !== 0) fail(`${what} is not [0] EXPLICIT`);
  const inner = node.valueBlock.value;
  if (inner.length !== 1) fail(`${what} must hold exactly one element`);
  return inner[0] as asn1js.AsnType;
}

function oid(node: asn1js.AsnType | undefined, what: string): string {
  if (!(node instanceof asn1js.ObjectIdentifier)) fail(`${what} is not an OBJECT IDENTIFIER`);
  return node.valueBlock.toString();
}

function octets(node: asn1js.AsnType | undefined, what: string): Uint8Array {
  // DER forbids the constructed (segmented) form of OCTET STRING (X.690 §10.2).
  if (!(node instanceof asn1js.OctetString) || node.idBlock.isConstructed) fail(`${what} is not a primitive OCTET STRING`);
  return new Uint8Array(node.valueBlock.valueHexView);
}

/** The DER bytes of TSTInfo inside a TimeStampToken (ContentInfo over SignedData). */
function tstInfoBytes(token: Uint8Array): Uint8Array {
  const contentInfo = children(decode(token, 'TimeStampToken'), 'ContentInfo');
  if (oid(contentInfo[0], 'ContentInfo.contentType') !== OID.signedData) fail('token is not CMS SignedData');
  const signedData = children(explicit0(contentInfo[1], 'ContentInfo.content'), 'SignedData');
  const encap = children(signedData[2], 'SignedData.encapContentInfo');
  if (oid(encap[0], 'eContentType') !== OID.tstInfo) fail('token does not encapsulate a TSTInfo');
  return octets(explicit0(encap[1], 'eContent'), 'eContent');
}

/**
 * Decode the attested facts of a DER TimeStampToken (RFC 3161 §2.4.2). Checks structure
 * only: neither the CMS signature nor the authority's certificate. Throws ProtocolError
 * `INVALID_TIMESTAMP_TOKEN` naming the part that does not parse.
 *
 * @example
 * const info = readTimeStampToken(b64Decode(anchor.tsa_token));
 * info.hash_algorithm === SHA256_OID;                          // true
 * b64uEncode(info.hashed_message) === epoch.root_hash;         // true for the epoch's own token
 */
export function readTimeStampToken(token: Uint8Array): TimeStampTokenInfo {
  if (!(token instanceof Uint8Array)) fail('token must be bytes');
  const tst = children(decode(tstInfoBytes(token), 'TSTInfo'), 'TSTInfo');
  const version = tst[0];
  if (!(version instanceof asn1js.Integer) || version.valueBlock.valueDec !== 1) fail('TSTInfo.version is not 1');
  const policy = oid(tst[1], 'TSTInfo.policy');
  const imprint = children(tst[2], 'TSTInfo.messageImprint');
  const algorithm = children(imprint[0], 'messageImprint.hashAlgorithm');
  const hashAlgorithm = oid(algorithm[0], 'hashAlgorithm.algorithm');
  // RFC 5754 §2: parameters absent, or NULL from older encoders; nothing else.
  if (algorithm.length > 2 || (algorithm.length === 2 && !(algorithm[1] instanceof asn1js.Null))) {
    fail('hashAlgorithm has unexpected parameters');
  }
  const hashedMessage = octets(imprint[1], 'messageImprint.hashedMessage');
  if (imprint.length !== 2) fail('messageImprint must have two members');
  const serial = tst[3];
  if (!(serial instanceof asn1js.Integer)) fail('TSTInfo.serialNumber is not an INTEGER');
  const genTime = tst[4];
  if (!(genTime instanceof asn1js.GeneralizedTime)) fail('TSTInfo.genTime is not a GeneralizedTime');
  const time = genTime.toDate().getTime();
  if (!Number.isSafeInteger(time)) fail('TSTInfo.genTime is not a valid time');
  return {
    hash_algorithm: hashAlgorithm,
    hashed_message: hashedMessage,
    gen_time: time,
    serial_number: serialHex(serial),
    policy,
  };
}

function serialHex(serial: asn1js.Integer): string {
  let hex = '';
  for (const byte of serial.valueBlock.valueHexView) hex += byte.toString(16).padStart(2, '0');
  return hex.replace(/^(?:00)+(?=..)/, '');
}
