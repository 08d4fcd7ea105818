// A local stand-in of a DNS-over-HTTPS resolver's JSON API (Cloudflare's https://cloudflare-dns.com/dns-query,
// Google's schema): GET ?name=<name>&type=A|AAAA|1|28 with Accept: application/dns-json answers
// { Status, TC, RD, RA, AD, CD, Question, Answer? } as 1.1.1.1 does: NXDOMAIN (3) for a name it has no
// zone for, NOERROR without Answer for a name without records of the type, CNAME records (type 5)
// before the addresses of their target. A record may be a function, asked on every query, to play DNS
// rebinding (rbndr.us answers one of two addresses at random, TTL 0). Faults: SERVFAIL, HTTP 500, no
// answer, a body that is not JSON, a truncated answer, an A record that is not an address.
import { startLocalServer } from './http-stand-in';

type Addresses = string[] | (() => string[]);

export interface DohZone {
  A?: Addresses;
  AAAA?: Addresses;
  /** The name is an alias of this one (its records are answered after the CNAME record). */
  CNAME?: string;
}

export type DohFault = 'pass' | 'servfail' | 'http500' | 'hang' | 'not-json' | 'truncated' | 'bad-record';

export interface DohQuery {
  name: string;
  type: string;
  accept: string;
}

export interface DohStandIn {
  /** http://127.0.0.1:<port>/dns-query */
  url: string;
  /** Sets (or replaces) the records of a name. */
  set(name: string, zone: DohZone): void;
  /** Removes a name: NXDOMAIN from now on. */
  remove(name: string): void;
  fault: DohFault;
  /** Every query received, in order. */
  queries: DohQuery[];
  close(): Promise<void>;
}

/** A record that answers each of `answers` in turn, one per query (a rebinding name with TTL 0). */
export function alternating(...answers: string[][]): () => string[] {
  let next = 0;
  return () => answers[next++ % answers.length]!;
}

const TYPES: Record<string, 'A' | 'AAAA'> = { A: 'A', a: 'A', '1': 'A', AAAA: 'AAAA', aaaa: 'AAAA', '28': 'AAAA' };
const TYPE_CODES = { A: 1, AAAA: 28, CNAME: 5 } as const;

const canonical = (name: string) => name.toLowerCase().replace(/\.+$/, '');

export async function startDohStandIn(): Promise<DohStandIn> {
  const zones = new Map<string, DohZone>();
  const queries: DohQuery[] = [];
  const hanging = new Set<() => void>();
  const standIn = {
    url: '',
    fault: 'pass' as DohFault,
    queries,
    set: (name: string, zone: DohZone) => void zones.set(canonical(name), zone),
    remove: (name: string) => void zones.delete(canonical(name)),
    close: async () => {},
  };
  const server = await startLocalServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const accept = String(req.headers.accept ?? '');
    const name = url.searchParams.get('name') ?? '';
    const rawType = url.searchParams.get('type') ?? 'A';
    queries.push({ name, type: rawType, accept });
    const send = (status: number, body: string, type = 'application/dns-json') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method !== 'GET' || url.pathname !== '/dns-query') return send(404, '{}', 'application/json');
    // 1.1.1.1 answers a JSON query without the JSON media type (or without a name) with 400.
    if (!accept.includes('application/dns-json') || !name) return send(400, '{"error":"Invalid query"}', 'application/json');
    const fault = standIn.fault;
    if (fault === 'hang') {
      const release = () => res.destroy();
      hanging.add(release);
      res.on('close', () => hanging.delete(release));
      return;
    }
    if (fault === 'http500') return send(500, 'internal error', 'text/plain');
    if (fault === 'not-json') return send(200, '<html>captive portal</html>', 'text/html');
    const type = TYPES[rawType];
    const question = [{ name: `${canonical(name)}.`, type: type ? TYPE_CODES[type] : Number(rawType) || 0 }];
    const base = { TC: fault === 'truncated', RD: true, RA: true, AD: false, CD: false, Question: question };
    if (fault === 'servfail') return send(200, JSON.stringify({ Status: 2, ...base, Comment: 'stand-in SERVFAIL' }));

    // Follow the CNAME chain (at most 8 links, as resolvers cap it), collecting the records on the way.
    const answer: { name: string; type: number; TTL: number; data: string }[] = [];
    let current = canonical(name);
    for (let hops = 0; hops < 8; hops++) {
      const zone = zones.get(current);
      if (!zone) {
        if (hops === 0) return send(200, JSON.stringify({ Status: 3, ...base }));
        break;
      }
      if (zone.CNAME) {
        answer.push({ name: `${current}.`, type: TYPE_CODES.CNAME, TTL: 300, data: `${canonical(zone.CNAME)}.` });
        current = canonical(zone.CNAME);
        continue;
      }
      const records = type ? zone[type] : undefined;
      const addresses = typeof records === 'function' ? records() : (records ?? []);
      for (const data of addresses)
        answer.push({ name: `${current}.`, type: TYPE_CODES[type!], TTL: typeof records === 'function' ? 0 : 300, data });
      break;
    }
    if (fault === 'bad-record' && type === 'A') answer.push({ name: `${current}.`, type: TYPE_CODES.A, TTL: 300, data: 'not-an-address' });
    return send(200, JSON.stringify({ Status: 0, ...base, ...(answer.length ? { Answer: answer } : {}) }));
  });
  standIn.url = `${server.origin}/dns-query`;
  standIn.close = async () => {
    for (const release of hanging) release();
    await server.close();
  };
  return standIn;
}
