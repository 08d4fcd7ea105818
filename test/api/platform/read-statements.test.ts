// Round trips are a test, not a hope: every read of the route table (every GET but the public ones),
// called with proper credentials on the demo clinic, sends at most ONE database statement once its
// key is cached and at most two when it is not (the key lookup), and a bearer-token read at most
// two (the token's user, then its query). And no list issues a query per row: each list that takes
// `limit` is run with limit=1 and limit=50 and must send as many statements for 50 rows as for 1.
// No read writes (a read's handler runs alongside the rate-limit store and its answer may be thrown
// away). Reads that genuinely need more are listed in MORE_STATEMENTS with the reason. Statements are
// counted from the database (the request log, batched off the request's path, is not counted).
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../../src/app';
import { useTestApp } from '../../helpers/app';
import { idPositions, operationInputs, sample } from '../../helpers/openapi-inputs';
import { countStatements, statementsOf } from '../../helpers/statements';
import { documentOf } from '../../helpers/strict-response';
import { properCredentials, rowIdsByTable, seedTwoClinics, type TwoClinics, tablesForId } from '../../helpers/two-clinics';

const t = useTestApp();

const DECLARED = createApp(async () => {
  throw new Error('declarations only');
});
const DOCUMENT = documentOf(DECLARED);
const READS = routeTable(DECLARED).filter((route) => route.method === 'GET' && route.access.auth !== 'public');

/**
 * Reads allowed more than one statement with a warm key (more than two with a token), and why. Keep
 * it short: each entry is a read whose answer cannot come from one statement.
 */
const MORE_STATEMENTS: Record<string, { statements: number; reason: string }> = {};

let world: TwoClinics;
let ownIds: Map<string, string[]>;
let sharedIds: Map<string, string[]>;

beforeAll(async () => {
  world = await seedTwoClinics(t);
  ownIds = await rowIdsByTable(t.db, world.caller.clinicId);
  sharedIds = await rowIdsByTable(t.db, null);
  // Limits stay enforced, raised so the walk is never refused (as the benchmark does).
  t.config.rateLimitMultiplier = 1000;
}, 120_000);

/** The route's URL: the caller's first id of the right kind in each path id, sampled required query parameters, and `extra`. */
function urlOf(route: (typeof READS)[number], extra: Record<string, string> = {}): string {
  const inputs = operationInputs(DOCUMENT, route);
  const positions = idPositions(DOCUMENT, route);
  let path = route.path;
  for (const param of inputs.path) {
    const position = positions.find((p) => p.in === 'path' && p.name === param.name);
    const tables = position ? [...tablesForId(position.name, position.resource), ...tablesForId('id', position.resource)] : [];
    const id = tables.map((table) => (ownIds.get(table) ?? sharedIds.get(table) ?? [])[0]).find(Boolean);
    path = path.replace(`{${param.name}}`, encodeURIComponent(id ?? String(sample(DOCUMENT, param.schema))));
  }
  const query = new URLSearchParams();
  const operation = inputs.operation as { parameters?: { in: string; name: string; required?: boolean }[] };
  const required = new Set((operation.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => p.name));
  for (const param of inputs.query) if (required.has(param.name)) query.set(param.name, String(sample(DOCUMENT, param.schema)));
  for (const [name, value] of Object.entries(extra)) query.set(name, value);
  return `${path}${query.size ? `?${query}` : ''}`;
}

/** Statements of the read with its key not cached (cold), then cached (count), and the rows it answered. */
async function measure(route: (typeof READS)[number], extra: Record<string, string> = {}) {
  const credentials = properCredentials(world, route.access);
  const send = () => t.request(urlOf(route, extra), credentials);
  t.services.keyCache.clear();
  const cold = await countStatements(t, send);
  const warm = await statementsOf(t, send);
  const { status } = warm;
  // The request log and a patient-data read's audit rows are written after the answer, in the background.
  const statements = warm.all.filter((sql) => !sql.includes('"request_logs"') && !sql.includes('insert into "audit_events"'));
  const count = statements.length;
  // A read runs alongside the rate-limit store's answer and may be thrown away: it must not write.
  const writes = statements.filter((sql) => /\b(insert\s+into|update\s+"?\w+"?\s+set|delete\s+from)\b/i.test(sql));
  expect(writes, `${route.method} ${route.path} writes:\n${writes.join('\n')}`).toEqual([]);
  const res = await send();
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : null;
  return { status, count, cold: cold.count, rows: Array.isArray(body?.data) ? body.data.length : null };
}

describe('database statements per read', () => {
  it('every read: one statement with a warm key (two with a bearer token), unless listed with its reason', async () => {
    const over: string[] = [];
    let answered = 0;
    for (const route of READS) {
      const name = `${route.method} ${route.path}`;
      const { status, count, cold } = await measure(route);
      expect(status, `${name} answered ${status}`).toBeLessThan(500);
      if (status < 400) answered++;
      const allowed = MORE_STATEMENTS[name]?.statements ?? (route.access.auth === 'jwt' ? 2 : 1);
      if (count > allowed) over.push(`${name}: ${count} statements (status ${status})`);
      // Cold, a key read adds its lookup: at most two in all.
      if (route.access.auth === 'key' && cold > allowed + 1) over.push(`${name}: ${cold} statements with the key not cached`);
    }
    expect(over, over.join('\n')).toEqual([]);
    // The walk reached the handlers (not only refusals): most reads answered with data.
    expect(answered).toBeGreaterThan(READS.length * 0.8);
  }, 120_000);

  it('no list issues a query per row: limit=50 sends as many statements as limit=1', async () => {
    const lists = READS.filter((route) => operationInputs(DOCUMENT, route).query.some((p) => p.name === 'limit'));
    const grew: string[] = [];
    let manyRows = 0;
    for (const route of lists) {
      const one = await measure(route, { limit: '1' });
      const fifty = await measure(route, { limit: '50' });
      if ((fifty.rows ?? 0) > 1) manyRows++;
      if (fifty.count > one.count)
        grew.push(`${route.method} ${route.path}: ${one.count} -> ${fifty.count} (rows ${one.rows} -> ${fifty.rows})`);
    }
    expect(grew, grew.join('\n')).toEqual([]);
    // Not vacuous: most lists had more than one row to answer.
    expect(manyRows).toBeGreaterThan(lists.length / 2);
  }, 120_000);
});
