// The transport fuzz of the dev server (issue 26; test/integration/dev-server.test.ts): chunked bodies on
// every method, GET and HEAD included; bodies over the limits; malformed chunk framing and bodies
// shorter than declared, over raw sockets; clients that leave mid-body. All at once, 127.0.0.1 only.
import { MAX_JSON_BODY_BYTES, MAX_MULTIPART_BODY_BYTES } from '../../src/platform/http/body-limit';
import { abandon, chunked, head, type RawAnswer, rawExchange } from './raw-http';

export interface FuzzCase {
  name: string;
  request: string | Buffer;
  halfClose?: boolean;
}

export interface FuzzResult {
  /** Every case with its answer (null: the connection closed without one). */
  answers: { c: FuzzCase; answer: RawAnswer | null }[];
  /** Clients that left mid-body. */
  abandoned: number;
  /** One line per case answered outside the envelope, with a 5xx, or not at all. */
  problems: string[];
  /** Answers by status. */
  counts: Map<number, number>;
  ms: number;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const CHUNKED = { 'transfer-encoding': 'chunked' };
const UNKNOWN_COUPON = '/api/v1/coupons/00000000-0000-4000-8000-000000000000';
/** Just over the JSON limit. */
export const OVER_JSON_LIMIT = MAX_JSON_BODY_BYTES + 65_536;
/** Just over the multipart limit, the largest body any route takes. */
export const OVER_ANY_LIMIT = MAX_MULTIPART_BODY_BYTES + 65_536;

const paddedJson = (bytes: number) => `{"padding":"${'x'.repeat(bytes)}"}`;
const pieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** The cases that expect an answer. `key` is a read-write API key. */
export function fuzzCases(key: string): FuzzCase[] {
  const keyed = { 'x-api-key': key };
  const cases: FuzzCase[] = [];
  // A small chunked JSON body on every method, on unauthenticated paths and keyed ones.
  const paths: [string, Record<string, string>][] = [
    ['/healthz', {}],
    ['/docs', {}],
    ['/api/v1/openapi.json', {}],
    ['/no-such-path', {}],
    ['/api/v1/me', keyed],
    [UNKNOWN_COUPON, keyed],
  ];
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
    for (const [path, headers] of paths)
      cases.push({
        name: `${method} ${path} chunked`,
        request: Buffer.concat([Buffer.from(head(method, path, { ...headers, ...JSON_TYPE, ...CHUNKED })), chunked('{"code":', '"FUZZ"}')]),
      });
  cases.push({
    name: 'POST /api/v1/coupons chunked (a real write)',
    request: Buffer.concat([
      Buffer.from(head('POST', '/api/v1/coupons', { ...keyed, ...JSON_TYPE, ...CHUNKED })),
      chunked('{"code":"CHUNKED', `${Date.now().toString(36).toUpperCase()}","discountType":"percent",`, '"discountValue":10}'),
    ]),
  });
  cases.push({
    name: 'GET /healthz empty chunked body',
    request: Buffer.concat([Buffer.from(head('GET', '/healthz', CHUNKED)), chunked()]),
  });

  // Over the JSON limit, chunked, on every method that takes a body and on GET and HEAD (ignored there);
  // and one over every limit (past it, the dev server's front stops buffering).
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
    cases.push({
      name: `${method} ${OVER_JSON_LIMIT} bytes chunked`,
      request: Buffer.concat([
        Buffer.from(
          head(method, method === 'GET' || method === 'HEAD' ? '/api/v1/me' : '/api/v1/coupons', { ...keyed, ...JSON_TYPE, ...CHUNKED }),
        ),
        chunked(...pieces(paddedJson(OVER_JSON_LIMIT), 65_536)),
      ]),
    });
  for (const method of ['GET', 'POST'])
    cases.push({
      name: `${method} ${OVER_ANY_LIMIT} bytes chunked`,
      request: Buffer.concat([
        Buffer.from(head(method, method === 'GET' ? '/api/v1/me' : '/api/v1/coupons', { ...keyed, ...JSON_TYPE, ...CHUNKED })),
        chunked(...pieces(paddedJson(OVER_ANY_LIMIT), 1_048_576)),
      ]),
    });

  // Framing no HTTP client sends. `/` is there because on `/` wrangler's proxy took a broken body for an
  // error of its own, and exited.
  for (const [method, path, headers] of [
    ['POST', '/', {}],
    ['GET', '/healthz', {}],
    ['HEAD', '/healthz', {}],
    ['POST', '/auth/signin', {}],
    ['PATCH', UNKNOWN_COUPON, keyed],
    ['GET', '/api/v1/me', keyed],
  ] as const) {
    const start = (extra: Record<string, string>) => head(method, path, { ...headers, ...JSON_TYPE, ...extra });
    cases.push(
      { name: `${method} ${path} invalid chunk size`, request: `${start(CHUNKED)}zz\r\n{"a":1}\r\n0\r\n\r\n` },
      { name: `${method} ${path} chunk longer than its size`, request: `${start(CHUNKED)}3\r\n{"a":1}\r\n0\r\n\r\n` },
      { name: `${method} ${path} chunk size overflow`, request: `${start(CHUNKED)}fffffffffffffffffff\r\n{}\r\n0\r\n\r\n` },
      {
        name: `${method} ${path} Content-Length and chunked`,
        request: `${start({ ...CHUNKED, 'content-length': '3' })}7\r\n{"a":1}\r\n0\r\n\r\n`,
      },
      { name: `${method} ${path} invalid Content-Length`, request: `${start({ 'content-length': '1x' })}{"a":1}` },
      {
        name: `${method} ${path} body shorter than Content-Length`,
        request: `${start({ 'content-length': '100' })}{"a":`,
        halfClose: true,
      },
      { name: `${method} ${path} chunked body without its last chunk`, request: `${start(CHUNKED)}7\r\n{"a":1}\r\n`, halfClose: true },
      { name: `${method} ${path} chunk cut short`, request: `${start(CHUNKED)}20\r\n{"a":`, halfClose: true },
    );
  }
  return cases;
}

/** Clients that send a head and part of a body, then reset the connection. */
function leavers(port: number, key: string): Promise<void>[] {
  return ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'HEAD'].flatMap((method) => [
    abandon(port, `${head(method, '/api/v1/coupons', { 'x-api-key': key, ...JSON_TYPE, ...CHUNKED })}40\r\n{"code":"LEAV`),
    abandon(port, `${head(method, '/healthz', { ...JSON_TYPE, 'content-length': '4096' })}{"padding":"`),
  ]);
}

/**
 * What an answer must be: never 5xx; a HEAD answer without a body; anything else the envelope (JSON,
 * `success` true on 2xx and false otherwise, a `code` on errors), except the 2xx answers of /docs and
 * /api/v1/openapi.json, which are the page and the document themselves.
 */
function check(c: FuzzCase, answer: RawAnswer | null): string | null {
  if (!answer) return `${c.name}: the connection closed without an answer`;
  const faults: string[] = answer.status >= 500 ? ['5xx'] : [];
  if (c.name.startsWith('HEAD ')) {
    if (answer.body !== '') faults.push('a HEAD answer with a body');
  } else if (!(answer.status < 300 && /^GET \/(docs|api\/v1\/openapi\.json) /.test(c.name))) {
    let body: { success?: unknown; code?: unknown } | undefined;
    try {
      body = JSON.parse(answer.body) as typeof body;
    } catch {
      faults.push('not JSON');
    }
    if (body) {
      if (!String(answer.headers['content-type']).startsWith('application/json')) faults.push('content type');
      if (body.success !== answer.status < 300) faults.push('success');
      if (answer.status >= 300 && typeof body.code !== 'string') faults.push('no code');
    }
  }
  const said = `${answer.headers['content-type'] ?? ''} ${answer.body.slice(0, 160)}`.trim();
  return faults.length ? `${c.name}: HTTP ${answer.status} ${said} (${faults.join(', ')})` : null;
}

/** Runs every case and every leaver at once against 127.0.0.1:port. */
export async function transportFuzz(port: number, key: string, timeoutMs = 30_000): Promise<FuzzResult> {
  const started = Date.now();
  const leaving = leavers(port, key);
  const answers = await Promise.all(
    fuzzCases(key).map(async (c) => {
      try {
        return { c, answer: await rawExchange(port, c.request, { halfClose: c.halfClose, timeoutMs }) };
      } catch (error) {
        return { c, answer: null, error: String(error) };
      }
    }),
  );
  await Promise.all(leaving);
  const counts = new Map<number, number>();
  const problems: string[] = [];
  for (const { c, answer, ...rest } of answers) {
    if (answer) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
    const problem = 'error' in rest ? `${c.name}: ${rest.error}` : check(c, answer);
    if (problem) problems.push(problem);
  }
  return {
    answers: answers.map(({ c, answer }) => ({ c, answer })),
    abandoned: leaving.length,
    problems,
    counts,
    ms: Date.now() - started,
  };
}
