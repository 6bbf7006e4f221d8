// The webhook egress policy (docs/WEBHOOKS.md; lambdas/adapters/webhooks/egress-policy.ts):
// every spelling of a forbidden address is refused, in a URL and as a resolved address.
import { describe, expect, it } from 'vitest';
import { addressRefusal, classifyAddress, parseEndpoint } from '../../lambdas/adapters/webhooks/egress-policy.js';

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

function refusal(url: string, rules = strict): string | undefined {
  const parsed = parseEndpoint(url, rules);
  return 'reason' in parsed ? parsed.reason : undefined;
}

describe('URLs whose host is a forbidden address, in every spelling, are refused', () => {
  it.each([
    // loopback, IPv4 spellings the WHATWG parser turns into 127.0.0.1
    'https://127.0.0.1/', 'https://127.0.0.1:8443/hook', 'https://2130706433/', 'https://0x7f000001/', 'https://0x7f.1/',
    'https://0177.0.0.1/', 'https://017700000001/', 'https://127.1/', 'https://127.0.1/', 'https://127.0.0.1./',
    'https://%31%32%37.0.0.1/', 'https://１２７.０.０.１/', 'https://127.255.255.254/',
    // loopback, IPv6 and its IPv4-mapped / compatible / NAT64 / SIIT forms
    'https://[::1]/', 'https://[0:0:0:0:0:0:0:1]/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:7f00:1]/',
    'https://[::127.0.0.1]/', 'https://[64:ff9b::127.0.0.1]/', 'https://[::ffff:0:127.0.0.1]/',
    // names that are loopback by definition
    'https://localhost/', 'https://LOCALHOST./', 'https://api.localhost/',
    // private (RFC 1918), in several spellings
    'https://10.0.0.1/', 'https://167772161/', 'https://0xa.1/', 'https://172.16.0.1/', 'https://172.31.255.255/', 'https://192.168.1.1/',
    'https://0300.0250.1.1/', 'https://[::ffff:10.0.0.1]/', 'https://[::ffff:192.168.0.1]/', 'https://[64:ff9b::10.0.0.1]/',
    // CGNAT
    'https://100.64.0.1/', 'https://100.127.255.255/',
    // link-local and the cloud metadata endpoints
    'https://169.254.169.254/latest/meta-data/', 'https://2852039166/', 'https://0xa9fea9fe/', 'https://[::ffff:169.254.169.254]/',
    'https://[fe80::1]/', 'https://[fd00:ec2::254]/',
    // unique-local, multicast, unspecified, broadcast
    'https://[fc00::1]/', 'https://[fdff:ffff::1]/', 'https://224.0.0.1/', 'https://239.255.255.250/', 'https://[ff02::1]/',
    'https://0.0.0.0/', 'https://0/', 'https://[::]/', 'https://255.255.255.255/',
    // documentation, benchmarking, reserved, site-local, 6to4, Teredo, non-global IPv6
    'https://192.0.2.1/', 'https://198.51.100.7/', 'https://203.0.113.9/', 'https://198.18.0.1/', 'https://240.0.0.1/',
    'https://[2001:db8::1]/', 'https://[fec0::1]/', 'https://[2002:7f00:1::1]/', 'https://[2001:0:4136:e378::1]/', 'https://[4000::1]/',
    'https://[64:ff9b:1::1]/',
  ])('%s', (url) => {
    expect(refusal(url)).toBeDefined();
  });
});

describe('URL form', () => {
  it.each([
    ['not a URL', 'hooks.example.com/x'],
    ['relative', '/webhook'],
    ['another scheme', 'ftp://example.com/'],
    ['javascript', 'javascript:alert(1)'],
    ['file', 'file:///etc/passwd'],
    ['plain http', 'http://example.com/hook'],
    ['userinfo', 'https://user:pass@example.com/'],
    ['user only', 'https://user@example.com/'],
    ['an IPv6 zone id', 'https://[fe80::1%25eth0]/'],
    ['too long', `https://example.com/${'a'.repeat(2048)}`],
  ])('%s is refused', (_what, url) => {
    expect(refusal(url)).toBeDefined();
  });

  it('a public https URL passes, normalized; a name is left for resolution', () => {
    const parsed = parseEndpoint('https://Hooks.Example.COM:8443/in?x=1', strict);
    expect(parsed).toMatchObject({ target: { host: 'hooks.example.com', literal: false } });
    expect('target' in parsed && parsed.target.url.href).toBe('https://hooks.example.com:8443/in?x=1');
    expect(refusal('https://93.184.216.34/hook')).toBeUndefined();
    expect(refusal('https://[2606:4700:4700::1111]/hook')).toBeUndefined();
    expect(refusal('https://[::ffff:93.184.216.34]/hook')).toBeUndefined();
  });

  it('LEDGER_WEBHOOK_ALLOW_LOOPBACK allows loopback (and plain http to it), nothing else', () => {
    expect(refusal('http://127.0.0.1:3500/hook', loopbackAllowed)).toBeUndefined();
    expect(refusal('https://[::1]/hook', loopbackAllowed)).toBeUndefined();
    expect(refusal('http://localhost:3500/', loopbackAllowed)).toBeUndefined();
    expect(refusal('http://93.184.216.34/', loopbackAllowed)).toMatch(/plain http/);
    expect(refusal('http://10.0.0.1/', loopbackAllowed)).toMatch(/private/);
    expect(refusal('https://169.254.169.254/', loopbackAllowed)).toMatch(/link-local/);
  });
});

describe('resolved addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'], ['64:ff9b::7f00:1', 'loopback'],
    ['10.1.2.3', 'private'], ['::ffff:a01:203', 'private'], ['100.100.100.100', 'carrierGradeNat'], ['169.254.169.254', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'], ['fd00:ec2::254', 'uniqueLocal'], ['ff05::2', 'multicast'], ['0.0.0.0', 'unspecified'],
    ['192.0.2.10', 'reserved'], ['2001:db8::10', 'reserved'], ['8.8.8.8', 'public'], ['2a00:1450::1', 'public'], ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('only public addresses over https pass; loopback only when allowed', () => {
    expect(addressRefusal('8.8.8.8', 'https:', strict)).toBeNull();
    expect(addressRefusal('8.8.8.8', 'http:', loopbackAllowed)).toMatch(/plain http/);
    expect(addressRefusal('127.0.0.1', 'http:', loopbackAllowed)).toBeNull();
    expect(addressRefusal('127.0.0.1', 'https:', strict)).toMatch(/loopback/);
    expect(addressRefusal('not-an-ip', 'https:', strict)).toMatch(/not an IP/);
  });
});
