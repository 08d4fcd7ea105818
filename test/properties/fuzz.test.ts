// Fuzz, walked from the route table: fast-check sends every declared operation generated requests
// (bodies, query strings, headers, path and body ids and credentials of every kind, fuzz-inputs.ts)
// and checks, on every answer:
//   1. no 5xx, except a 503 the operation declares;
//   2. a status the operation declares (docs/api-conventions.md, "Responses");
//   3. an X-Request-Id header;
//   4. the envelope: { success: true, message, data } on a 2xx (data unless the declared schema has
//      none), { success: false, message, code } on anything else;
//   5. a body that matches the schema declared for its status, with no undeclared field (t.send runs
//      test/helpers/strict-response.ts on every response);
// and, after each operation's runs, that the bystander clinic's rows are unchanged (a checksum of each
// of its tables: test/helpers/two-clinics.ts).
//
// Bounded: FUZZ_RUNS requests in all (default 2000, spread evenly over the operations); more with
// FUZZ_RUNS=20000. Each run prints its seed; FUZZ_SEED=<seed> replays it (add FUZZ_PATH=<path> from a
// failure, and -t "<operation>", to replay the counterexample alone; FUZZ_CHECK_EACH=1 checks the
// bystander's rows after every request, so a change is pinned to one request and shrunk).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../src/app';
import type { RouteTableEntry } from '../../src/platform/http/route-table';
import { useTestApp } from '../helpers/app';
import type { Schema } from '../helpers/openapi-inputs';
import { declaredJsonSchema, documentOf, resolveSchema } from '../helpers/strict-response';
import {
  changedTables,
  clinicChecksums,
  restoreAccess,
  rowIdsByTable,
  seedTwoClinics,
  type TwoClinics,
  unlimitedRateLimiter,
} from '../helpers/two-clinics';
import { type GeneratedRequest, requestArbitrary, toRequest } from './fuzz-inputs';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const PATH = process.env.FUZZ_PATH;
const CHECK_EACH = process.env.FUZZ_CHECK_EACH === '1';

const t = useTestApp({ rateLimiter: unlimitedRateLimiter });
const DECLARED = createApp(async () => {
  throw new Error('declarations only');
});
const DOCUMENT = documentOf(DECLARED);
const ROUTES = routeTable(DECLARED).map((route) => ({ ...route, name: `${route.method} ${route.path}` }));
const RUNS_PER_OPERATION = Math.max(1, Math.round(RUNS / ROUTES.length));

/** Each operation's own seed, from the run's seed and its name: FUZZ_SEED replays every operation. */
const seedOf = (name: string) => [...name].reduce((hash, ch) => (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0, SEED);
const replay = (route: { name: string }, extra = '') =>
  `FUZZ_SEED=${SEED}${extra} npx vitest run --project node test/properties/fuzz.test.ts -t "${route.name} keeps"`;

let world: TwoClinics;
let requests: (route: RouteTableEntry) => fc.Arbitrary<GeneratedRequest>;
let lastChecksums: Record<string, string> | undefined;
const figures = {
  requests: 0,
  byClass: {} as Record<string, number>,
  answered2xx: new Set<string>(),
};
const started = Date.now();

beforeAll(async () => {
  console.log(`fuzz: seed ${SEED}, ${RUNS_PER_OPERATION} runs per operation over ${ROUTES.length} operations (replay: FUZZ_SEED=${SEED})`);
  world = await seedTwoClinics(t);
  const pools = {
    own: await rowIdsByTable(t.db, world.caller.clinicId),
    foreign: await rowIdsByTable(t.db, world.bystander.clinicId),
    shared: await rowIdsByTable(t.db, null),
    reserved: world.reservedIds,
  };
  requests = requestArbitrary(DOCUMENT, pools, world);
}, 120_000);

afterAll(() => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const classes = Object.entries(figures.byClass)
    .sort()
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  console.log(
    `fuzz: seed ${SEED}; ${figures.requests} requests to ${ROUTES.length} operations in ${seconds} s (${classes}); ` +
      `${figures.answered2xx.size} operations answered a 2xx at least once`,
  );
  // Where generated requests never got through (a body the schema cannot express, state the run never reached).
  const never = ROUTES.filter((route) => !figures.answered2xx.has(route.name)).map((route) => route.name);
  if (never.length && figures.requests >= ROUTES.length) console.log(`fuzz: never a 2xx: ${never.join(', ')}`);
});

class Broken extends Error {
  override name = 'BrokenPromise';
}

/** The query parameters of the URL the operation does not declare. */
function unknownQueryParams(operation: Schema, url: string): string[] {
  const declared = new Set(
    ((operation.parameters ?? []) as { in: string; name: string }[]).filter((p) => p.in === 'query').map((p) => p.name),
  );
  return [...new URL(url, 'http://localhost').searchParams.keys()].filter((name) => !declared.has(name));
}

/** The checks 1–4 above on one answer (5 ran in t.send). */
async function checkAnswer(route: RouteTableEntry & { name: string }, url: string, res: Response) {
  const operation = (DOCUMENT.paths?.[route.path]?.[route.method.toLowerCase()] ?? {}) as Schema;
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  const status = res.status;
  const text = await res.text();
  const where = `${route.method} ${url} → ${status}: ${text.slice(0, 400)}`;
  figures.requests++;
  figures.byClass[`${String(status)[0]}xx`] = (figures.byClass[`${String(status)[0]}xx`] ?? 0) + 1;
  if (status >= 500 && !(status === 503 && '503' in responses)) throw new Broken(`a 5xx the operation does not declare: ${where}`);
  // Strict queries (docs/api-conventions.md): a parameter the operation does not declare is never ignored.
  const unknown = unknownQueryParams(operation, url);
  if (unknown.length && status < 300) throw new Broken(`an unknown query parameter (${unknown.join(', ')}) was ignored: ${where}`);
  const plain = unknown.find((name) => /^[A-Za-z0-9_]+$/.test(name));
  if (plain && status === 400 && !text.includes(`query.${plain}`))
    throw new Broken(`a 400 not naming the unknown parameter ${plain}: ${where}`);
  if (!(String(status) in responses)) throw new Broken(`a status the operation does not declare: ${where}`);
  if (!res.headers.get('x-request-id')) throw new Broken(`no X-Request-Id: ${where}`);
  if (status === 204 || status === 304) {
    if (text) throw new Broken(`a body on a ${status}: ${where}`);
    return;
  }
  const schema = declaredJsonSchema(operation, status);
  if (status < 300) {
    figures.answered2xx.add(route.name);
    // A declared answer that is not JSON (the logo itself): nothing more to check here.
    if (!schema) return;
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Broken(`not JSON: ${where}`);
  }
  if (status < 300) {
    const declaresData = 'data' in ((resolveSchema(DOCUMENT, schema!).properties ?? {}) as object);
    if (body.success !== true || typeof body.message !== 'string' || (declaresData && !('data' in body)))
      throw new Broken(`not the success envelope: ${where}`);
  } else {
    if (body.success !== false || typeof body.message !== 'string' || !body.message || typeof body.code !== 'string' || !body.code)
      throw new Broken(`not the error envelope: ${where}`);
  }
}

// One describe per operation, named in full (describe.each's $name is cut short), so -t finds it.
for (const route of ROUTES) {
  describe(route.name, () => {
    it('keeps its promises for generated requests, and leaves the other clinic alone', { timeout: 180_000 }, async () => {
      await restoreAccess(t.db, world);
      const before = lastChecksums ?? (await clinicChecksums(t.db, world.bystander.clinicId));
      lastChecksums = undefined;
      const property = fc.asyncProperty(requests(route), async (generated) => {
        const { url, init } = toRequest(route, generated);
        // FUZZ_CHECK_EACH: the bystander's rows around this request alone, so shrinking keeps to requests that change them.
        const prior = CHECK_EACH ? await clinicChecksums(t.db, world.bystander.clinicId) : undefined;
        await checkAnswer(route, url, await t.send(url, init));
        if (prior) {
          await t.flush();
          const changed = changedTables(prior, await clinicChecksums(t.db, world.bystander.clinicId));
          if (changed.length) throw new Broken(`${route.method} ${url} changed the bystander's ${changed.join(', ')}`);
        }
      });
      try {
        await fc.assert(property, { numRuns: RUNS_PER_OPERATION, seed: seedOf(route.name), ...(PATH ? { path: PATH } : {}) });
      } catch (error) {
        const path = /path: "([^"]+)"/.exec(String((error as Error).message))?.[1];
        (error as Error).message += `\nreplay: ${replay(route, path ? ` FUZZ_PATH=${path}` : '')}`;
        throw error;
      }
      await t.flush();
      const after = await clinicChecksums(t.db, world.bystander.clinicId);
      expect(
        changedTables(before, after),
        `${route.name} changed the bystander's rows; pin the request with: ${replay(route, ' FUZZ_CHECK_EACH=1')}`,
      ).toEqual([]);
      lastChecksums = after;
    });
  });
}
