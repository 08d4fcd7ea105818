// Isolation, walked from the route table: every operation that takes an id (a path parameter, a query
// parameter or a body field named like one, at any depth) answers another clinic's real id exactly as
// it answers an id that exists nowhere (same status, same body once the id sent is replaced), and
// leaves the other clinic's rows unchanged (the checksum of each of its tables). The id under test is
// the only thing that varies: the rest of the request is valid (the caller's own ids in the other id
// positions, a sampled body from the declared schema, a real image for uploads), so the answer comes
// from the id check and not from a validation that runs before it.
//
// The other clinic's ids are read per table (test/helpers/two-clinics.ts): an id position is mapped to
// the tables it may name (tablesForId), and every such clinic-owned table's first row of the bystander
// is tried. Positions that name only the shared catalogues (global products, templates, plans) have no
// "other clinic" and are counted apart. A position whose name maps to no table fails the suite: a new
// id name needs its table named in ID_ALIASES.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../src/app';
import { useTestApp } from '../helpers/app';
import { IMAGES, imageForm } from '../helpers/images';
import { type IdPosition, idPositions, operationInputs, type Schema, sample, sampleVariants, withValue } from '../helpers/openapi-inputs';
import { documentOf, resolveSchema } from '../helpers/strict-response';
import {
  changedTables,
  clinicChecksums,
  clinicTables,
  properCredentials,
  restoreAccess,
  rowIdsByTable,
  seedTwoClinics,
  type TwoClinics,
  tablesForId,
  unlimitedRateLimiter,
} from '../helpers/two-clinics';

const t = useTestApp({ rateLimiter: unlimitedRateLimiter });

/** Read from the declarations alone (no request is made to build them). */
const DECLARED = createApp(async () => {
  throw new Error('declarations only');
});
const DOCUMENT = documentOf(DECLARED);
const CLINIC_TABLES = new Set(clinicTables.map((table) => table.name));
/** md5 of no rows (clinicChecksums of an empty table). */
const EMPTY_CHECKSUM = 'd41d8cd98f00b204e9800998ecf8427e';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a position holds one of our ids: path and query parameters named like ids always; a body
 * field unless its declared example is not a uuid (pharmacyProductId: another system's id).
 */
function holdsOurIds(position: IdPosition, schema: Schema | undefined): boolean {
  if (position.in !== 'body') return true;
  const resolved = schema ? resolveSchema(DOCUMENT, schema) : {};
  const item = position.many ? resolveSchema(DOCUMENT, (resolved.items ?? {}) as Schema) : resolved;
  return !(typeof item.example === 'string' && !UUID.test(item.example));
}

/** The declared schema at a body path (through arrays and objects), for holdsOurIds. */
function schemaAt(root: Schema | undefined, path: (string | number)[]): Schema | undefined {
  let schema = root ? resolveSchema(DOCUMENT, root) : undefined;
  for (const part of path) {
    if (!schema) return undefined;
    if (typeof part === 'number') schema = resolveSchema(DOCUMENT, (schema.items ?? {}) as Schema);
    else {
      const branches = [
        schema,
        ...((schema.allOf ?? schema.anyOf ?? schema.oneOf ?? []) as Schema[]).map((s) => resolveSchema(DOCUMENT, s)),
      ];
      const found = branches.map((b) => (b.properties as Record<string, Schema> | undefined)?.[part]).find(Boolean);
      schema = found ? resolveSchema(DOCUMENT, found) : undefined;
    }
  }
  return schema;
}

interface Operation {
  name: string;
  method: string;
  path: string;
  access: ReturnType<typeof routeTable>[number]['access'];
  positions: (IdPosition & { tables: string[] })[];
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const OPERATIONS: Operation[] = routeTable(DECLARED)
  .map((route) => {
    const inputs = operationInputs(DOCUMENT, route);
    const positions = idPositions(DOCUMENT, route)
      .filter((position) => holdsOurIds(position, schemaAt(inputs.jsonBody, position.path)))
      // A path id is also read as the resource it follows (/analytics/programs/{questionnaireId}: questionnaires, programs).
      .map((position) => ({
        ...position,
        tables: [
          ...new Set([
            ...tablesForId(position.name, position.resource),
            ...(position.in === 'path' ? tablesForId('id', position.resource) : []),
          ]),
        ],
      }));
    return { name: `${route.method} ${route.path}`, method: route.method, path: route.path, access: route.access, positions };
  })
  .filter((operation) => operation.positions.length > 0)
  // Reads first and deletions last, so an operation rarely finds the caller's ids gone.
  .sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));

let world: TwoClinics;
let ownIds: Map<string, string[]>;
let foreignIds: Map<string, string[]>;
let sharedIds: Map<string, string[]>;
let bystanderIds: Set<string>;
/** The bystander's checksums after the last operation (each operation's "before" is the previous one's "after"). */
let lastChecksums: Record<string, string> | undefined;
const figures = { operations: 0, positions: 0, shared: 0, comparisons: 0, reached: 0, requests: 0 };
/** Positions whose own id was never answered unlike an unknown id: their comparisons may stop at an earlier check. */
const unreached: string[] = [];
const started = Date.now();

beforeAll(async () => {
  world = await seedTwoClinics(t);
  ownIds = await rowIdsByTable(t.db, world.caller.clinicId);
  foreignIds = await rowIdsByTable(t.db, world.bystander.clinicId);
  sharedIds = await rowIdsByTable(t.db, null);
  bystanderIds = new Set([...foreignIds.values()].flat().map((id) => id.toLowerCase()));
  lastChecksums = await clinicChecksums(t.db, world.bystander.clinicId);
  const empty = Object.entries(lastChecksums).filter(([, checksum]) => checksum === EMPTY_CHECKSUM);
  console.log(
    `isolation: the bystander has rows in ${clinicTables.length + 1 - empty.length} of ${clinicTables.length + 1} tables` +
      (empty.length ? ` (none in ${empty.map(([table]) => table).join(', ')})` : ''),
  );
}, 120_000);

/**
 * The caller's ids for a position, a few, taking turns between its tables in order (first rows first),
 * never the suite's own keys or signed-in owner.
 */
function ownCandidates(tables: string[], max = Math.min(6, Math.max(3, tables.length))): string[] {
  const lists = tables.map((table) => (ownIds.get(table) ?? sharedIds.get(table) ?? []).filter((id) => !world.reservedIds.has(id)));
  const out: string[] = [];
  for (let i = 0; out.length < max && lists.some((list) => list.length > i); i++) {
    for (const list of lists) if (list[i] && out.length < max) out.push(list[i]!);
  }
  return out;
}

type Position = Operation['positions'][number];

/** The operation's request with `value` at `position`, the caller's first id of its kind at every other, and `body` as the JSON body. */
function build(operation: Operation, position: Position, value: string, body: unknown) {
  const inputs = operationInputs(DOCUMENT, operation);
  const idAt = (p: Position) => (p === position ? value : (ownCandidates(p.tables, 1)[0] ?? randomUUID()));
  let path = operation.path;
  for (const param of inputs.path) {
    const at = operation.positions.find((p) => p.in === 'path' && p.name === param.name);
    path = path.replace(`{${param.name}}`, encodeURIComponent(at ? idAt(at) : String(sample(DOCUMENT, param.schema))));
  }
  const query = new URLSearchParams();
  for (const at of operation.positions.filter((p) => p.in === 'query')) query.set(at.name, idAt(at));
  const headers: Record<string, string> = {};
  const credentials = properCredentials(world, operation.access);
  if (credentials.key) headers['x-api-key'] = credentials.key;
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  let payload: BodyInit | undefined;
  if (inputs.jsonBody) {
    let json = body;
    for (const p of operation.positions.filter((p) => p.in === 'body')) json = withValue(json, p.path, p.many ? [idAt(p)] : idAt(p));
    payload = JSON.stringify(json);
    headers['content-type'] = 'application/json';
  } else if (inputs.multipartBody) {
    const properties = (resolveSchema(DOCUMENT, inputs.multipartBody).properties ?? {}) as Record<string, Schema>;
    const field = Object.entries(properties).find(([, s]) => resolveSchema(DOCUMENT, s).format === 'binary')?.[0] ?? 'image';
    payload = imageForm(IMAGES.png, { field, filename: 'pixel.png', type: 'image/png' });
  }
  return { url: `${path}${query.size ? `?${query}` : ''}`, init: { method: operation.method, headers, body: payload } };
}

const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
const ANY_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The answer to the operation with `value` at `position`: its status, and its body with the id sent
 * replaced by <id> and what two identical requests may still tell apart (ids of rows the request made,
 * times) replaced too. The bystander's other ids are kept, so an answer that leaks one of them differs
 * from the unknown id's answer.
 */
async function answer(operation: Operation, position: Position, value: string, body: unknown) {
  figures.requests++;
  const { url, init } = build(operation, position, value, body);
  const res = await t.send(url, init);
  const text = (await res.text())
    .replaceAll(value, '<id>')
    .replace(ANY_UUID, (id) => (bystanderIds.has(id.toLowerCase()) ? `<bystander ${id}>` : '<uuid>'))
    .replace(TIMESTAMP, '<time>');
  return { status: res.status, body: text };
}

const same = (a: { status: number; body: string }, b: { status: number; body: string }) => a.status === b.status && a.body === b.body;

/** Requests one position may spend looking for a body that reaches its id check. */
const REACH_BUDGET = 18;

/**
 * The body under which the caller's own id is answered unlike an unknown id (the id check is reached),
 * among the schema's sample variants; the first variant when none is within the budget (listed at the end).
 */
async function reachingBody(operation: Operation, position: Position): Promise<unknown> {
  const schema = operationInputs(DOCUMENT, operation).jsonBody;
  const keep = operation.positions.filter((p) => p.in === 'body').map((p) => p.path);
  const variants = schema ? sampleVariants(DOCUMENT, schema, keep) : [undefined];
  let spent = 0;
  for (const [i, body] of variants.entries()) {
    const unknown = await answer(operation, position, randomUUID(), body);
    spent++;
    // Every candidate id under the first body; the first two under the others (the body is what varies then).
    for (const own of ownCandidates(position.tables).slice(0, i === 0 ? undefined : 2)) {
      if (spent++ >= REACH_BUDGET) break;
      if (!same(await answer(operation, position, own, body), unknown)) {
        figures.reached++;
        return body;
      }
    }
    if (spent >= REACH_BUDGET) break;
  }
  unreached.push(`${operation.name} ${position.in}:${position.path.join('.') || position.name}`);
  return variants[0];
}

describe('the route table', () => {
  it('maps every id the operations take to the tables it may name', () => {
    const unmapped = OPERATIONS.flatMap((o) => o.positions.filter((p) => !p.tables.length).map((p) => `${o.name} ${p.in}:${p.name}`));
    expect(unmapped, 'add the id names to ID_ALIASES in test/helpers/two-clinics.ts').toEqual([]);
    expect(OPERATIONS.length).toBeGreaterThan(60);
  });
});

// One describe per operation, named in full (describe.each's $name is cut short), so -t finds it.
for (const operation of OPERATIONS) {
  describe(operation.name, () => {
    it("answers the other clinic's ids exactly as unknown ids, and leaves its rows unchanged", async () => {
      await restoreAccess(t.db, world);
      const before = lastChecksums ?? (await clinicChecksums(t.db, world.bystander.clinicId));
      lastChecksums = undefined;
      figures.operations++;
      for (const position of operation.positions) {
        figures.positions++;
        const foreignTables = position.tables.filter((table) => CLINIC_TABLES.has(table) || table === 'clinics');
        if (!foreignTables.length) {
          figures.shared++;
          continue;
        }
        const label = `${operation.name} ${position.in}:${position.path.join('.') || position.name}`;
        const body = await reachingBody(operation, position);
        for (const table of foreignTables) {
          const foreign = foreignIds.get(table)?.[0];
          if (!foreign) continue;
          figures.comparisons++;
          // Each after the other and in this order: an answer that changed anything for the next shows up as a difference.
          const got = await answer(operation, position, foreign, body);
          const unknown = await answer(operation, position, randomUUID(), body);
          expect(got, `${label}: the bystander's ${table} id is answered unlike an unknown id`).toEqual(unknown);
        }
      }
      await t.flush();
      const after = await clinicChecksums(t.db, world.bystander.clinicId);
      expect(changedTables(before, after), `${operation.name} changed the bystander's rows`).toEqual([]);
      lastChecksums = after;
    });
  });
}

afterAll(() => {
  console.log(
    `isolation: ${figures.operations} operations, ${figures.positions} id positions (${figures.shared} shared-catalogue only), ` +
      `${figures.comparisons} bystander-vs-unknown comparisons, ${figures.reached} positions where the caller's own id is answered differently, ` +
      `${figures.requests} requests, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (unreached.length) console.log(`own id answered like an unknown one (not reached) at:\n  ${unreached.join('\n  ')}`);
});
