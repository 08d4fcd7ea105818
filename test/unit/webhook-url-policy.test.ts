import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  MAX_WEBHOOK_URL_LENGTH,
  refusedAddress,
  refusedIpv4,
  refusedIpv6,
} from '../../src/modules/webhooks-checkout/webhooks/url-policy';

/** Hostile URLs and the words the refusal must contain. */
const REFUSED: [string, string][] = [
  // scheme, credentials, shape
  ['http://example.com/hook', 'https'],
  ['ftp://example.com/hook', 'https'],
  ['javascript:alert(1)', 'https'],
  ['file:///etc/passwd', 'https'],
  ['//example.com/hook', 'absolute URL'],
  ['not a url', 'absolute URL'],
  ['https://user:pass@example.com/hook', 'credentials'],
  ['https://user@example.com/hook', 'credentials'],
  ['https://:pass@example.com/hook', 'credentials'],
  ['https://example.com/hook#frag', 'fragment'],
  [`https://example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`, 'at most'],
  // private, CGNAT, loopback, link-local, unspecified, multicast, reserved IPv4
  ['https://10.0.0.1/', 'private'],
  ['https://10.255.255.255/', 'private'],
  ['https://172.16.0.1/', 'private'],
  ['https://172.31.255.254/', 'private'],
  ['https://192.168.1.1/', 'private'],
  ['https://100.64.0.1/', 'carrier-grade NAT'],
  ['https://100.127.255.255/', 'carrier-grade NAT'],
  ['https://127.0.0.1/', 'loopback'],
  ['https://127.255.255.254:8443/x', 'loopback'],
  ['https://169.254.169.254/latest/meta-data/', 'link-local'],
  ['https://169.254.0.1/', 'link-local'],
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified'],
  ['https://224.0.0.1/', 'multicast'],
  ['https://239.255.255.250/', 'multicast'],
  ['https://255.255.255.255/', 'broadcast'],
  ['https://192.0.2.10/', 'documentation'],
  ['https://198.18.0.1/', 'benchmarking'],
  // IPv4 literals written other ways (the URL parser normalises them; the check sees 127.0.0.1)
  ['https://2130706433/', 'loopback'],
  ['https://0x7f000001/', 'loopback'],
  ['https://0x7f.0.0.1/', 'loopback'],
  ['https://0177.0.0.1/', 'loopback'],
  ['https://0177.0000.0000.0001/', 'loopback'],
  ['https://127.1/', 'loopback'],
  ['https://127.0.1/', 'loopback'],
  ['https://%31%32%37.0.0.1/', 'loopback'],
  ['https://\uff11\uff12\uff17.0.0.1/', 'loopback'],
  ['https://127.0.0.1./', 'loopback'],
  ['https://0xa9fea9fe/', 'link-local'],
  ['https://2852039166/', 'link-local'],
  ['https://0xA.0.0.1/', 'private'],
  ['https://012.0.0.1/', 'private'],
  ['https://3232235777/', 'private'],
  // IPv6
  ['https://[::1]/', 'loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['https://[::]/', 'unspecified'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['https://[::ffff:7f00:1]/', 'IPv4-mapped'],
  ['https://[::ffff:169.254.169.254]/', 'IPv4-mapped'],
  ['https://[::ffff:8.8.8.8]/', 'IPv4-mapped'],
  ['https://[::127.0.0.1]/', 'IPv4-compatible'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'NAT64'],
  ['https://[fe80::1]/', 'link-local'],
  ['https://[febf::1]/', 'link-local'],
  ['https://[fc00::1]/', 'unique-local'],
  ['https://[fd12:3456:789a::1]/', 'unique-local'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://[2001:db8::1]/', 'documentation'],
  ['https://[2002:7f00:1::1]/', '6to4'],
  ['https://[2001:0:4136:e378::1]/', 'Teredo'],
  // names
  ['https://localhost/', 'localhost'],
  ['https://LOCALHOST/', 'localhost'],
  ['https://localhost./', 'localhost'],
  ['https://api.localhost/', 'local'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
  ['https://metadata.google.internal./', 'metadata.google.internal'],
  ['https://metadata/', 'fully qualified'],
  ['https://db.internal/', 'internal'],
  ['https://printer.local/', 'local'],
  ['https://router.home.arpa/', 'local'],
  ['https://intranet/', 'fully qualified'],
  ['https://127.0.0.1.nip.io/', 'wildcard-DNS'],
  ['https://10.0.0.1.sslip.io/', 'wildcard-DNS'],
  ['https://app.localtest.me/', 'wildcard-DNS'],
  ['https://kubernetes.default.svc/', 'internal'],
  ['https://kubernetes.default.svc./hook', 'internal'],
  ['https://api.default.svc.cluster.local/', 'local'],
  ['https://1.0.0.127.in-addr.arpa/', 'local'],
  ['https://hidden.onion/', 'local'],
  // IP literals are refused even when public (a receiver is named; a deployed Worker cannot fetch an IP)
  ['https://8.8.8.8/hook', 'IP address'],
  ['https://1.1.1.1', 'IP address'],
  ['https://134744072/', 'IP address'],
  ['https://0x08080808/', 'IP address'],
  ['https://[2606:4700:4700::1111]/hook', 'IP address'],
  // ports other than 443 and 8443
  ['https://example.com:8080/hook', 'port 443 or 8443'],
  ['https://example.com:80/hook', 'port 443 or 8443'],
  ['https://example.com:22/', 'port 443 or 8443'],
  ['https://example.com:6443/', 'port 443 or 8443'],
  ['https://example.com:65535/', 'port 443 or 8443'],
  ['https://vcap.me:444/', 'port 443 or 8443'],
];

/** URLs the policy lets through, as stored, and the name whose addresses are checked next (destination.ts). */
const ALLOWED: [string, string, string][] = [
  ['https://example.com/webhooks', 'https://example.com/webhooks', 'example.com'],
  ['https://Hooks.Example.COM:8443/a?b=c', 'https://hooks.example.com:8443/a?b=c', 'hooks.example.com'],
  ['https://hooks.example.com:443/a', 'https://hooks.example.com/a', 'hooks.example.com'],
  ['https://hooks.example.com./a', 'https://hooks.example.com./a', 'hooks.example.com'],
  ['https://xn--bcher-kva.example/', 'https://xn--bcher-kva.example/', 'xn--bcher-kva.example'],
  ['https://bücher.example/', 'https://xn--bcher-kva.example/', 'xn--bcher-kva.example'],
  ['https://localhost.example.com/', 'https://localhost.example.com/', 'localhost.example.com'],
  // Names are judged by what they resolve to, not by how they look: these pass here and are refused there.
  ['https://vcap.me/', 'https://vcap.me/', 'vcap.me'],
  ['https://7f000001.c0a80001.rbndr.us/', 'https://7f000001.c0a80001.rbndr.us/', '7f000001.c0a80001.rbndr.us'],
];

describe('checkWebhookUrl', () => {
  it.each(REFUSED)('refuses %s (%s)', (url, reason) => {
    const result = checkWebhookUrl(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it.each(ALLOWED)('allows %s as %s (resolving %s)', (url, normalised, name) => {
    expect(checkWebhookUrl(url)).toEqual({ ok: true, url: normalised, resolve: name });
  });

  it('allows http(s) on 127.0.0.1 and localhost, any port, only with allowInsecureLocalhost, and resolves nothing then', () => {
    for (const url of ['http://127.0.0.1:9999/hook', 'http://localhost:3000/x', 'https://localhost/x', 'http://127.0.0.1/']) {
      expect(checkWebhookUrl(url).ok, url).toBe(false);
      expect(checkWebhookUrl(url, { allowInsecureLocalhost: true }), url).toEqual({ ok: true, url: new URL(url).href, resolve: null });
    }
    // The flag opens exactly those two hosts, nothing else local or plain-http.
    for (const url of [
      'http://10.0.0.1:80/',
      'http://[::1]:9999/',
      'http://example.com/',
      'http://api.localhost:1/',
      'http://u:p@127.0.0.1:1/',
      'ftp://127.0.0.1/',
      'https://example.com:8080/',
      'https://8.8.8.8/',
    ]) {
      expect(checkWebhookUrl(url, { allowInsecureLocalhost: true }).ok, url).toBe(false);
    }
  });

  it('measures the length as written and as normalised', () => {
    const path = 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - 'https://example.com/'.length);
    expect(checkWebhookUrl(`https://example.com/${path}`).ok).toBe(true);
    expect(checkWebhookUrl(`https://example.com/${path}a`).ok).toBe(false);
  });
});

describe('refusedIpv4 / refusedIpv6 / refusedAddress', () => {
  it('judges resolved addresses of either family, public ones pass', () => {
    expect(refusedAddress('93.184.215.14')).toBeNull();
    expect(refusedAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toBeNull();
    expect(refusedAddress('127.0.0.1')).toContain('loopback');
    expect(refusedAddress('169.254.169.254')).toContain('link-local');
    expect(refusedAddress('100.100.100.200')).toContain('carrier-grade NAT');
    expect(refusedAddress('::ffff:7f00:1')).toContain('IPv4-mapped');
    expect(refusedAddress('64:ff9b::a9fe:a9fe')).toContain('NAT64');
    expect(refusedAddress('fd00:ec2::254')).toContain('unique-local');
  });

  it('range edges', () => {
    expect(refusedIpv4('172.15.255.255')).toBeNull();
    expect(refusedIpv4('172.16.0.0')).toContain('private');
    expect(refusedIpv4('172.31.255.255')).toContain('private');
    expect(refusedIpv4('172.32.0.0')).toBeNull();
    expect(refusedIpv4('100.63.255.255')).toBeNull();
    expect(refusedIpv4('100.64.0.0')).toContain('carrier-grade');
    expect(refusedIpv4('223.255.255.255')).toBeNull();
  });

  it('parses every IPv6 spelling, dotted tails included, and passes only global unicast', () => {
    expect(refusedIpv6('::ffff:10.0.0.1')).toContain('IPv4-mapped');
    expect(refusedIpv6('0:0:0:0:0:ffff:0a00:0001')).toContain('IPv4-mapped');
    expect(refusedIpv6('fe80:0:0:0:0:0:0:1')).toContain('link-local');
    expect(refusedIpv6('2002:0808:0808::1')).toBeNull();
    expect(refusedIpv6('2001:4860:4860::8888')).toBeNull();
    expect(refusedIpv6('4000::1')).toContain('reserved');
    expect(refusedIpv6('1:2:3')).toContain('unparseable');
    expect(refusedIpv6('1::2::3')).toContain('unparseable');
  });
});
