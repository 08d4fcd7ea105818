// Patient data never reaches the audit trail, the request log or the server log (issue 37, items 1 and
// 3; docs/audit-log.md, "Field values"). Every audited write of the route table is sent with a body
// that succeeds (the write walk shared with write-statements.test.ts), its text replaced by text naming
// a patient: "Patient Tess Dunn DOB 1980-02-03" and an email in free text, the email in an email field,
// a URL holding both in a URL field, a slug, a code or a host name made of them where the field's pattern
// takes one, an entry of that text in a free-form object (metadata), the patient's rows in a CSV import and
// the name in an upload's file name. Where the route refuses that body, each field is tried alone and
// the body keeps those the route accepts (it must still answer 2xx). Then every write (and every read
// with path parameters) is sent once more with that email as each path parameter. None of the text may
// then be found in GET /audit-events, its CSV export or GET /request-logs of the clinics written to, nor in
// any line the server logged meanwhile (src/platform/log.ts writes them to the console).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, routeTable } from '../../../src/app';
import { writeAction } from '../../../src/platform/http/audit';
import { useTestApp } from '../../helpers/app';
import { operationInputs, type Schema, withValue } from '../../helpers/openapi-inputs';
import { resolveSchema } from '../../helpers/strict-response';
import { properCredentials, restoreAccess } from '../../helpers/two-clinics';
import { type Body, build, CASES, DOCUMENT, nameOf, type Route, useWriteWalk, WRITES, walkWorld } from '../../helpers/write-walk';

const t = useTestApp();
useWriteWalk(t);

/** In every text the walk sends, so what it finds is this run's and not the demo data's (which has a Tess Dunn). */
const TOKEN = randomUUID().slice(0, 8);
/** The same in letters only, for a name field that takes no digit (0-9 as g-p). */
const letters = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(103 + Number(d)));
const DOB = '1980-02-03';
let sent = 0;
/** Text naming the patient in each shape a field may take, unique per call (names, codes and emails must not repeat). */
function patientText() {
  const u = `${TOKEN}${sent++}`;
  const email = `tess.dunn.${u}@demo-patients.test`;
  return {
    email,
    free: [
      `Patient Tess Dunn${u} DOB ${DOB}, ${email}`,
      `Patient Tess Dunn${u} DOB ${DOB}`,
      `Tess Dunn${u} ${DOB}`,
      `Tess Dunn${u}`,
      `Tess Dunn${letters(u)}`,
    ],
    url: `https://demo-patients.test/tess-dunn-${u}?dob=${DOB}&email=${encodeURIComponent(email)}`,
    shaped: [`tess-dunn-${u}-${DOB}`, `TESSDUNN${u.toUpperCase()}`, `tess-dunn-${u}.demo-patients.test`, `tessdunn${u}`],
  };
}
const NEEDLES = [TOKEN, letters(TOKEN), DOB];
const found = (text: string) => NEEDLES.filter((needle) => text.toLowerCase().includes(needle.toLowerCase()));

/** A string position the walk may fill: where it is, and the text that fits its schema (null: nothing fits). */
interface Slot {
  path: (string | number)[];
  schema: Schema;
}

const NOT_TEXT = new Set(['uuid', 'date-time', 'date', 'binary', 'byte']);
const typesOf = (schema: Schema) => ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []);

/** Every string position of `value` (read with its schema), plus a new entry in each free-form object. */
function slots(raw: Schema | undefined, value: unknown, path: (string | number)[] = [], depth = 0): Slot[] {
  if (!raw || depth > 8) return [];
  const schema = resolveSchema(DOCUMENT, raw);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword] as Schema[] | undefined;
    if (branches) {
      const all = branches.flatMap((branch) => slots(branch, value, path, depth + 1));
      return all.filter((slot, i) => all.findIndex((other) => JSON.stringify(other.path) === JSON.stringify(slot.path)) === i);
    }
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => slots(schema.items as Schema, item, [...path, i], depth + 1));
  if (value && typeof value === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const extra = schema.additionalProperties;
    const own = Object.entries(value).flatMap(([k, v]) =>
      properties[k]
        ? slots(properties[k], v, [...path, k], depth + 1)
        : extra && typeof extra === 'object'
          ? slots(extra as Schema, v, [...path, k], depth + 1)
          : [],
    );
    // A free-form object (metadata) takes one more entry, its key and value naming the patient.
    const added = extra && typeof extra === 'object' ? slots(extra as Schema, 'x', [...path, `tess.dunn.${TOKEN}`], depth + 1) : [];
    return [...own, ...added];
  }
  const isText = typesOf(schema).includes('string') && !schema.enum && !('const' in schema) && !NOT_TEXT.has(String(schema.format));
  return isText && (typeof value === 'string' || value === undefined || value === null) ? [{ path, schema }] : [];
}

/** The texts naming the patient that fit the slot's schema (format, pattern, length), the likeliest first. */
function textsFor(slot: Slot): string[] {
  const text = patientText();
  const fits = (v: string) =>
    v.length >= Number(slot.schema.minLength ?? 0) &&
    v.length <= Number(slot.schema.maxLength ?? Number.POSITIVE_INFINITY) &&
    (!slot.schema.pattern || new RegExp(String(slot.schema.pattern), 'u').test(v));
  const format = slot.schema.format;
  const tries =
    format === 'email'
      ? [text.email]
      : format === 'uri' || format === 'url'
        ? [text.url]
        : [...text.free, text.email, text.url, ...text.shaped];
  return tries.filter(fits);
}

/** The multipart body with the patient in it: a CSV import's rows, an upload's file name. */
function patientForm(form: FormData): FormData {
  const out = new FormData();
  form.forEach((value, field) => {
    if (typeof value === 'string') out.append(field, value);
    else if (field === 'csv') {
      const { email } = patientText();
      out.append(field, new Blob([`firstname,lastname,email\nTess,Dunn${TOKEN},${email}\n`], { type: 'text/csv' }), `tess-dunn-${DOB}.csv`);
    } else out.append(field, value, `tess-dunn-${TOKEN}-${DOB}.png`);
  });
  return out;
}

const world = () => walkWorld();
/** How many times each route was sent: the walk's nth request of it (CASES make unique names and pick rows by it). */
const attempts = new Map<string, number>();

/** Sends the route's request (the walk's, with the options' edits); answers its status. */
async function send(route: Route, options: Parameters<typeof build>[2] = {}) {
  await restoreAccess(t.db, world());
  const n = attempts.get(nameOf(route)) ?? 0;
  attempts.set(nameOf(route), n + 1);
  // The first two rows only, as write-statements.test.ts uses them: later ones may be in a state the walk's cases do not prepare.
  const { url, init } = await build(route, n, { row: n % 2, ...options });
  const res = await t.send(url, init);
  const text = await res.text();
  await t.flush();
  await CASES[nameOf(route)]?.after?.();
  return { status: res.status, text };
}

/** Writes that cannot answer 2xx here (as in write-statements.test.ts). */
const UNREACHED: Record<string, number> = { 'POST /api/v1/programs/copilot/draft': 503 };
const isOk = (route: Route, status: number) => status < 300 || UNREACHED[nameOf(route)] === status;

/** The body fields (by path) each route took the patient's text in, for the report and the checks below. */
const filled = new Map<string, string[]>();
const refused: string[] = [];
let logged: string[] = [];
const spies: ReturnType<typeof vi.spyOn>[] = [];

beforeAll(() => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    spies.push(vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))));
  }
  logged = [];
});
afterAll(() => {
  for (const spy of spies) spy.mockRestore();
});

/** One write: its text filled where the route accepts it. */
async function walkWrite(route: Route) {
  const name = nameOf(route);
  const inputs = operationInputs(DOCUMENT, route);
  if (inputs.multipartBody) {
    const res = await send(route, { editForm: patientForm });
    if (!isOk(route, res.status)) refused.push(`${name} (multipart) answered ${res.status}: ${res.text.slice(0, 200)}`);
    else filled.set(name, ['(form)']);
    return;
  }
  if (!inputs.jsonBody) {
    const res = await send(route);
    if (!isOk(route, res.status)) refused.push(`${name} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return;
  }
  // Which slots: read from a body as the walk builds it (the slots' texts are made per send).
  let found: Slot[] = [];
  await send(route, {
    editBody: (json: Body) => {
      found = slots(inputs.jsonBody, json);
      return json;
    },
  });
  /** The body with the nth text of each chosen slot (each slot's first by default). */
  const fill =
    (chosen: Slot[], choice = new Map<Slot, number>()) =>
    (json: Body) => {
      let out = json;
      for (const slot of chosen) out = withValue(out, slot.path, textsFor(slot)[choice.get(slot) ?? 0]);
      return out;
    };
  const fillable = found.filter((slot) => textsFor(slot).length > 0);
  const label = (chosen: Slot[]) => chosen.map((slot) => slot.path.join('.'));
  if (fillable.length === 0) return;
  const all = await send(route, { editBody: fill(fillable) });
  if (isOk(route, all.status)) {
    filled.set(name, label(fillable));
    return;
  }
  // Refused: each field alone, each text that fits it until one is taken; then the ones taken together
  // (or none), which must succeed: the walk's later writes count on what this one leaves (a domain
  // started, a page made).
  const taken: Slot[] = [];
  const choice = new Map<Slot, number>();
  for (const slot of fillable) {
    for (let i = 0; i < textsFor(slot).length; i++) {
      if (!isOk(route, (await send(route, { editBody: fill([slot], new Map([[slot, i]])) })).status)) continue;
      taken.push(slot);
      choice.set(slot, i);
      break;
    }
  }
  const last = await send(route, { editBody: fill(taken, choice) });
  if (!isOk(route, last.status)) refused.push(`${name} with ${label(taken)} filled answered ${last.status}: ${last.text.slice(0, 200)}`);
  else if (taken.length) filled.set(name, label(taken));
}

const ALL_ROUTES = routeTable(
  createApp(async () => {
    throw new Error('declarations only');
  }),
).filter((route) => route.access.auth !== 'public' && route.path.includes('{'));

/** Every route with path parameters, the patient's email in each. */
async function walkPaths() {
  for (const route of ALL_ROUTES) {
    const isWrite = WRITES.some((w) => nameOf(w) === nameOf(route));
    const email = patientText().email;
    if (isWrite) {
      await send(route, { editPath: (params) => Object.fromEntries(Object.keys(params).map((k) => [k, email])) });
      continue;
    }
    await restoreAccess(t.db, world());
    const path = route.path.replace(/\{[^}]+\}/g, encodeURIComponent(email));
    const credentials = properCredentials(world(), route.access);
    await t.request(path, { key: credentials.key, token: credentials.token, method: route.method });
  }
  await t.flush();
}

/** Every page of a list. */
async function everything(path: string, key: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const res = await t.request(`${path}${path.includes('?') ? '&' : '?'}limit=200&page=${page}`, { key });
    expect(res.status, path).toBe(200);
    const body = await res.json();
    rows.push(...body.data);
    if (page >= body.pagination.totalPages) return rows;
  }
}

describe('patient data in every write and path', () => {
  it('reaches neither the audit trail, its export, the request log nor the server log', async () => {
    for (const route of WRITES) await walkWrite(route);
    await walkPaths();
    expect(refused, refused.join('\n')).toEqual([]);

    const leaks: string[] = [];
    const credentials = world().caller.credentials;
    let callerRows: { events: { route: string }[]; logs: unknown[] } = { events: [], logs: [] };
    for (const [clinic, key] of [
      ['caller', credentials.secret],
      ['sandbox', credentials.sandbox],
    ] as const) {
      const events = (await everything('/api/v1/audit-events', key)) as { action: string; route: string }[];
      for (const event of events)
        if (found(JSON.stringify(event)).length) leaks.push(`${clinic} audit event ${JSON.stringify(event).slice(0, 400)}`);
      const csv = await (await t.request('/api/v1/audit-events/export', { key })).text();
      for (const line of csv.split('\r\n')) if (found(line).length) leaks.push(`${clinic} export line ${line.slice(0, 300)}`);
      const logs = await everything('/api/v1/request-logs', key);
      for (const row of logs)
        if (found(JSON.stringify(row)).length) leaks.push(`${clinic} request log ${JSON.stringify(row).slice(0, 300)}`);
      if (clinic === 'caller') callerRows = { events, logs };
    }
    for (const line of logged) if (found(line).length) leaks.push(`server log: ${line.slice(0, 300)}`);
    expect(leaks, leaks.join('\n')).toEqual([]);

    // The walk was recorded: a row per audited write it made, and the request log has the path probes.
    const audited = WRITES.filter((route) => writeAction(String(operationInputs(DOCUMENT, route).operation.operationId)));
    const routes = new Set(callerRows.events.map((e) => e.route));
    const sandboxOnly = (route: Route) => 'sandbox' in route.access && route.access.sandbox === 'only';
    expect(audited.filter((route) => !sandboxOnly(route) && !routes.has(route.path) && !UNREACHED[nameOf(route)]).map(nameOf)).toEqual([]);
    expect(callerRows.logs.some((row) => (row as { path: string }).path === '/api/v1/orders/{id}')).toBe(true);

    // The review's fields took the patient's text (the test cannot pass by sending none).
    const took = (route: string, field: string) => filled.get(route)?.some((path) => path === field || path.startsWith(`${field}.`));
    for (const [route, field] of [
      ['PUT /api/v1/support/tickets/{id}', 'title'],
      ['PUT /api/v1/support/tickets/{id}', 'description'],
      ['POST /api/v1/refunds', 'reason'],
      ['POST /api/v1/checkout/sessions', 'metadata'],
      ['POST /api/v1/checkout/sessions', 'successUrl'],
      ['POST /api/v1/contacts', 'email'],
      ['POST /api/v1/coupons', 'description'],
    ] as const) {
      expect(took(route, field), `${route} ${field}: ${JSON.stringify(filled.get(route))}`).toBe(true);
    }
    expect(filled.size).toBeGreaterThan(50);
    // AUDIT_VALUES_REPORT=1 prints which fields of which route took the patient's text (the console is captured).
    if (process.env.AUDIT_VALUES_REPORT)
      process.stdout.write(`${[...filled].map(([route, fields]) => `${route}: ${fields.join(', ')}`).join('\n')}\n`);
  }, 600_000);
});

describe('the review: GET /api/v1/orders/<an email> (matched route, 404)', () => {
  it('is logged with the route pattern and its placeholder, never the path as typed', async () => {
    const { secret } = world().caller.credentials;
    const res = await t.request('/api/v1/orders/tess.dunn.40@demo-patients.test', { key: secret });
    expect(res.status).toBe(404);
    const id = res.headers.get('x-request-id');
    const known = (await (await t.request('/api/v1/orders?limit=1', { key: secret })).json()).data[0].id as string;
    const ok = await t.request(`/api/v1/orders/${known}`, { key: secret });
    expect(ok.status).toBe(200);
    await t.flush();
    const row = await (await t.request(`/api/v1/request-logs/${id}`, { key: secret })).json();
    expect(row.data).toMatchObject({ route: '/api/v1/orders/{id}', path: '/api/v1/orders/{id}', status: 404 });
    const okRow = await (await t.request(`/api/v1/request-logs/${ok.headers.get('x-request-id')}`, { key: secret })).json();
    expect(okRow.data.path).toBe(`/api/v1/orders/${known}`);
  });
});
