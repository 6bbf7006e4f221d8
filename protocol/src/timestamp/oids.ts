/**
 * The object identifiers an RFC 3161 time-stamp token is read and checked by, in one place for
 * every reader: the protocol's imprint reader (token.ts), the CLI's signature check and the
 * service's check of a TSA's answer before it becomes an epoch's anchor (docs/PROTOCOL.md
 * "RFC 3161 anchor").
 */
export const TIMESTAMP_OIDS = {
  /** id-data, RFC 5652 §4. */
  data: '1.2.840.113549.1.7.1',
  /** id-signedData, RFC 5652 §5.1. */
  signedData: '1.2.840.113549.1.7.2',
  /** id-ct-TSTInfo, RFC 3161 §2.4.2. */
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  /** id-contentType, the signed content-type attribute, RFC 5652 §11.1. */
  contentTypeAttribute: '1.2.840.113549.1.9.3',
  /** id-sha256, RFC 5754 §2: the only imprint algorithm docs/PROTOCOL.md uses. */
  sha256: '2.16.840.1.101.3.4.2.1',
  /** id-ce-extKeyUsage, RFC 5280 §4.2.1.12. */
  extKeyUsage: '2.5.29.37',
  /** id-kp-timeStamping, RFC 3161 §2.3. */
  timeStamping: '1.3.6.1.5.5.7.3.8',
} as const;

/** A certificate's extensions as an X.509 decoder (pkijs) gives them, parsed values included. */
export interface CertificateWithExtensions {
  extensions?: readonly { extnID: string; critical?: boolean; parsedValue?: unknown }[];
}

/**
 * RFC 3161 §2.3: a TSA's signing certificate carries the timeStamping extended key usage, and
 * that extension is critical.
 *
 * @example
 * hasTimeStampingUsage(pkijs.Certificate.fromBER(der)); // true for a TSA's certificate
 */
export function hasTimeStampingUsage(certificate: CertificateWithExtensions): boolean {
  const extension = certificate.extensions?.find((candidate) => candidate.extnID === TIMESTAMP_OIDS.extKeyUsage);
  const purposes = (extension?.parsedValue as { keyPurposes?: readonly string[] } | undefined)?.keyPurposes ?? [];
  return extension?.critical === true && purposes.includes(TIMESTAMP_OIDS.timeStamping);
}
