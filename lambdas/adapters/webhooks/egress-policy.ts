/**
 * The webhook egress policy (docs/WEBHOOKS.md): which URLs and which addresses the service
 * may POST deliveries to. docs/API.md §4.9 requires endpoint URLs to "pass the egress policy"
 * and leaves the rules to us; these are they:
 *
 * - `https` only; plain `http` only with LEDGER_WEBHOOK_ALLOW_LOOPBACK and only to loopback
 *   addresses (local testing);
 * - no userinfo (`user:password@`);
 * - the host must not be, or resolve to, an address of these kinds: loopback (unless
 *   LEDGER_WEBHOOK_ALLOW_LOOPBACK), private (RFC 1918), CGNAT (RFC 6598, 100.64/10),
 *   link-local (169.254/16 with the cloud metadata address 169.254.169.254, fe80::/10),
 *   unique-local (fc00::/7, with fd00:ec2::254), multicast, unspecified, broadcast,
 *   documentation, benchmarking and the other reserved ranges, nor the IPv4-mapped,
 *   IPv4-compatible, SIIT (RFC 6145) and NAT64 (RFC 6052) IPv6 forms of those. Only global
 *   unicast addresses pass: IPv4 that ipaddr.js calls `unicast`, IPv6 in 2000::/3 that it
 *   calls `unicast`.
 *
 * Spellings: URLs are parsed by the WHATWG URL parser (Node's `URL`), which turns every
 * numeric host spelling a client library would accept (2130706433, 0x7f.1, 0177.0.0.1,
 * 127.1, trailing dots, percent-encoding, full-width digits) into the one dotted form, and
 * rejects IPv6 zone ids. Address classification is ipaddr.js's range table; the IPv6 forms
 * that embed an IPv4 address are unwrapped here and the embedded address judged instead.
 */
import ipaddr from 'ipaddr.js';

export interface EgressRules {
  /** LEDGER_WEBHOOK_ALLOW_LOOPBACK: loopback targets, and plain http to them, are allowed. */
  allowLoopback: boolean;
}

/** docs/API.md §4.9 / §8: endpoint_url is at most 2048 characters. */
const MAX_ENDPOINT_URL_LENGTH = 2048;

/** What an address is, for the policy: `public` (global unicast), `loopback`, or the name of a forbidden kind. */
type AddressKind = 'public' | 'loopback' | string;

/** Words for ipaddr.js range names in refusal messages. */
const RANGE_WORDS: Record<string, string> = {
  private: 'a private (RFC 1918) address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  deprecatedSiteLocal: 'a site-local address',
  rfc6052: 'a local-use NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

function describeKind(kind: string): string {
  return RANGE_WORDS[kind] ?? `a special-purpose address (${kind})`;
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the forms that are only a wrapper of one. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const parts = address.parts;
  const lastTwo = (): ipaddr.IPv4 => new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  // ::ffff:0:a.b.c.d (RFC 6145, SIIT) and 64:ff9b::a.b.c.d (RFC 6052 well-known NAT64 prefix).
  if (address.match(ipaddr.IPv6.parse('::ffff:0:0:0'), 96)) return lastTwo();
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return lastTwo();
  // ::a.b.c.d, IPv4-compatible (RFC 4291 §2.5.5.1, deprecated); :: and ::1 are themselves.
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) return lastTwo();
  return undefined;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');

/** Classifies an IP address string (any form ipaddr.js parses, zone ids included). Throws on a non-address. */
export function classifyAddress(text: string): AddressKind {
  let address = ipaddr.parse(text);
  if (address.kind() === 'ipv6') {
    const v4 = embeddedIpv4(address as ipaddr.IPv6);
    if (v4) address = v4;
  }
  const range = address.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return range;
  if (address.kind() === 'ipv6' && !(address as ipaddr.IPv6).match(GLOBAL_UNICAST_V6, 3)) return 'reserved';
  return 'public';
}

/** Why `address` may not be connected to over `protocol`, or null when it may. */
export function addressRefusal(address: string, protocol: string, rules: EgressRules): string | null {
  let kind: AddressKind;
  try {
    kind = classifyAddress(address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (kind === 'loopback') return rules.allowLoopback ? null : `${address} is a loopback address`;
  if (kind !== 'public') return `${address} is ${describeKind(kind)}`;
  if (protocol === 'http:') return 'plain http is allowed only to loopback addresses (LEDGER_WEBHOOK_ALLOW_LOOPBACK); use https';
  return null;
}

/** A URL that passed the checks of its form; its host still has to resolve to allowed addresses. */
export interface EndpointTarget {
  url: URL;
  /** The host without IPv6 brackets: a name (for DNS, Host and TLS SNI) or an IP literal. */
  host: string;
  /** Set when the host is an IP literal: there is nothing to resolve. */
  literal: boolean;
}

/** `localhost` and `*.localhost` are loopback by definition (RFC 6761 §6.3), whatever DNS says. */
function isLocalhostName(host: string): boolean {
  const name = host.replace(/\.$/, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Checks an endpoint URL's form: absolute, https (or http when loopback is allowed), no
 * userinfo, a host; an IP-literal host is judged here, a name later against what it
 * resolves to. Returns the target or the reason for refusing it.
 */
export function parseEndpoint(raw: string, rules: EgressRules): { target: EndpointTarget } | { reason: string } {
  if (raw.length > MAX_ENDPOINT_URL_LENGTH) return { reason: `the URL is longer than ${MAX_ENDPOINT_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { reason: `the scheme must be https, got ${url.protocol.slice(0, -1)}` };
  if (url.protocol === 'http:' && !rules.allowLoopback) return { reason: 'the scheme must be https' };
  if (url.username !== '' || url.password !== '') return { reason: 'the URL must not carry credentials (user:password@)' };
  const bracketed = url.hostname.startsWith('[');
  const host = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { reason: 'the URL has no host' };
  const literal = bracketed || ipaddr.IPv4.isValidFourPartDecimal(host);
  if (literal) {
    const refused = addressRefusal(host, url.protocol, rules);
    return refused ? { reason: refused } : { target: { url, host, literal } };
  }
  if (isLocalhostName(host)) {
    if (!rules.allowLoopback) return { reason: `${host} is a loopback name` };
  }
  return { target: { url, host, literal } };
}
