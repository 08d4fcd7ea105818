// The DNS-over-HTTPS adapter (production's resolver of webhook host names) against a local stand-in
// of the JSON API (test/tooling/doh-stand-in.ts): what it asks, how answers map to addresses, and
// that every answer it cannot trust is 'unavailable', never an empty (passing) list.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLOUDFLARE_DOH_URL } from '../../src/config';
import type { Database } from '../../src/platform/db/client';
import { providersFor } from '../../src/platform/providers';
import { DevelopmentHostResolver } from '../../src/platform/providers/dns/development';
import { DohHostResolver } from '../../src/platform/providers/dns/doh';
import { ProviderError } from '../../src/platform/providers/errors';
import { testConfig } from '../helpers/app';
import { alternating, type DohStandIn, startDohStandIn } from '../tooling/doh-stand-in';

let dns: DohStandIn;
beforeAll(async () => {
  dns = await startDohStandIn();
});
afterAll(async () => dns?.close());
beforeEach(() => {
  dns.fault = 'pass';
  dns.queries.length = 0;
});

const resolver = (timeoutMs?: number) => new DohHostResolver({ url: dns.url, timeoutMs });

async function failure(work: Promise<unknown>): Promise<ProviderError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

describe('DohHostResolver', () => {
  it('asks for A and AAAA with Accept: application/dns-json and answers every address of both', async () => {
    dns.set('hooks.brand.example', { A: ['93.184.215.14', '93.184.215.15'], AAAA: ['2606:2800:021F:cb07:6820:80da:af6b:8b2c'] });
    expect(await resolver().addressesOf('hooks.brand.example')).toEqual([
      '93.184.215.14',
      '93.184.215.15',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    ]);
    expect(dns.queries.map((q) => [q.name, q.type]).sort()).toEqual([
      ['hooks.brand.example', 'A'],
      ['hooks.brand.example', 'AAAA'],
    ]);
    expect(dns.queries.every((q) => q.accept === 'application/dns-json')).toBe(true);
  });

  it('follows what the resolver followed: the addresses at the end of a CNAME chain, not the CNAME records', async () => {
    dns.set('hooks.cname.example', { CNAME: 'edge.cname.example' });
    dns.set('edge.cname.example', { CNAME: 'origin.cname.example' });
    dns.set('origin.cname.example', { A: ['127.0.0.1'], AAAA: ['::1'] });
    expect(await resolver().addressesOf('hooks.cname.example')).toEqual(['127.0.0.1', '::1']);
  });

  it('answers [] for NXDOMAIN and for a name with neither record type', async () => {
    expect(await resolver().addressesOf('nowhere.brand.example')).toEqual([]);
    dns.set('mail-only.brand.example', {});
    expect(await resolver().addressesOf('mail-only.brand.example')).toEqual([]);
  });

  it('answers a rebinding name afresh on every call (no cache)', async () => {
    dns.set('7f000001.5db8d70e.rbndr.us', { A: alternating(['93.184.215.14'], ['127.0.0.1']) });
    expect(await resolver().addressesOf('7f000001.5db8d70e.rbndr.us')).toEqual(['93.184.215.14']);
    expect(await resolver().addressesOf('7f000001.5db8d70e.rbndr.us')).toEqual(['127.0.0.1']);
  });

  it.each([
    ['servfail', /SERVFAIL/],
    ['http500', /HTTP 500/],
    ['not-json', /not JSON/],
    ['truncated', /truncated/],
    ['bad-record', /not an address/],
  ] as const)('is unavailable, never an empty answer, when the resolver answers %s', async (fault, message) => {
    dns.set('hooks.brand.example', { A: ['93.184.215.14'] });
    dns.fault = fault;
    const error = await failure(resolver().addressesOf('hooks.brand.example'));
    expect([error.capability, error.provider, error.kind]).toEqual(['dns', 'cloudflare-doh', 'unavailable']);
    expect(error.message).toMatch(message);
  });

  it('is unavailable when the resolver does not answer in time, and gives up on time', async () => {
    dns.fault = 'hang';
    const started = Date.now();
    const error = await failure(resolver(300).addressesOf('hooks.brand.example'));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('no answer in time');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is unavailable when the resolver cannot be reached', async () => {
    const closed = await startDohStandIn();
    await closed.close();
    const error = await failure(new DohHostResolver({ url: closed.url }).addressesOf('hooks.brand.example'));
    expect(error.kind).toBe('unavailable');
  });
});

describe('the provider door', () => {
  const db = {} as Database;
  it("resolves through Cloudflare's DNS over HTTPS in production, and not at all in development and test", async () => {
    const production = providersFor({ ...testConfig('postgres://127.0.0.1/x'), environment: 'production' }, {}, db);
    expect(production.hostResolver).toBeInstanceOf(DohHostResolver);
    expect(production.hostResolver.name).toBe('cloudflare-doh');
    expect(CLOUDFLARE_DOH_URL).toBe('https://cloudflare-dns.com/dns-query');
    for (const environment of ['development', 'test'] as const) {
      const providers = providersFor({ ...testConfig('postgres://127.0.0.1/x'), environment }, {}, db);
      expect(providers.hostResolver).toBeInstanceOf(DevelopmentHostResolver);
      expect(await providers.hostResolver.addressesOf('vcap.me')).toBeNull();
    }
  });
});
