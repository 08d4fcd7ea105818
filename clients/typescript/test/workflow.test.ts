// The typed client against the API over HTTP: a real Node HTTP server in front of the test app (the
// Worker's app, test/helpers/app.ts, real PostgreSQL; every answer also checked against its declared
// schema with no undeclared field), and the workflow file compiled under `tsc --strict`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app';
import { makeTenant } from '../../../test/helpers/factories';
import { makeOrder, makeOrderItem } from '../../../test/helpers/order-fixtures';
import { makeGlobalProduct, makeProgram, makeTenantProduct } from '../../../test/helpers/program-fixtures';
import { BrandAdminError, createClient, unwrap } from '../src/index';
import { type Served, serveTestApp } from './serve';
import { runWorkflow } from './workflow';

const t = useTestApp();
let served: Served;
let baseUrl: string;

beforeAll(async () => {
  served = await serveTestApp(t);
  baseUrl = served.baseUrl;
});
afterAll(() => served.close());

describe('the TypeScript client', () => {
  it('runs the workflow: orders by page, one order, a coupon created (retried) and deleted, a webhook endpoint, programs and pricing', async () => {
    const tenant = await makeTenant(t.db);
    const clinicId = tenant.clinic.id;
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await makeOrder(t.db, clinicId, { status: i === 0 ? 'shipped' : 'paid' }));
    await makeOrderItem(t.db, clinicId, orders[0]!.id, { productName: 'Semaglutide', unitPriceCents: 10_000, totalPriceCents: 10_000 });
    const product = await makeGlobalProduct(t.db, { name: 'Semaglutide' });
    await makeTenantProduct(t.db, clinicId, product.id, { priceCents: 29_900 });
    const program = await makeProgram(t.db, clinicId, { name: 'Weight loss' }, [{ globalProductId: product.id }]);

    const api = createClient({ baseUrl, apiKey: tenant.key });
    const result = await runWorkflow(api, { couponCode: 'WELCOME15', webhookUrl: 'https://hooks.example.com/service' });

    expect(result.pages.map((p) => p.ids.length)).toEqual([2, 2, 1]);
    expect(result.pages[0]).toMatchObject({ total: 5, totalPages: 3 });
    expect(new Set(result.pages.flatMap((p) => p.ids))).toEqual(new Set(orders.map((o) => o.id)));
    expect(result.order).toMatchObject({ id: result.pages[0]!.ids[0] });
    expect(['paid', 'shipped']).toContain(result.order.status);
    expect(result.coupon).toMatchObject({ code: 'WELCOME15', replayed: 'true', deleted: true });
    expect(result.webhook).toMatchObject({ events: ['order.created', 'order.shipped'], secretPrefix: 'whsec_' });
    expect(result.programs).toEqual([{ id: program.id, name: 'Weight loss' }]);
    expect(result.pricing).toEqual({ programId: program.id, products: 1 });

    // The coupon is gone; the retry created nothing.
    const after = await t.request('/api/v1/coupons', { key: tenant.key });
    expect((await after.json()).data).toEqual([]);
  });

  it('answers errors as typed error bodies', async () => {
    const tenant = await makeTenant(t.db);
    const api = createClient({ baseUrl, apiKey: tenant.key });
    const { data, error, response } = await api.GET('/api/v1/orders/{id}', { params: { path: { id: crypto.randomUUID() } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const anonymous = await createClient({ baseUrl }).GET('/api/v1/orders');
    expect(anonymous.response.status).toBe(401);
  });

  it('pages through a list with paginate (one request per page) and throws typed errors with unwrap', async () => {
    const tenant = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const orders = [];
    for (let i = 0; i < 5; i++) orders.push(await makeOrder(t.db, tenant.clinic.id));
    const foreign = await makeOrder(t.db, other.clinic.id);
    const api = createClient({ baseUrl, apiKey: tenant.key });
    const seen: string[] = [];
    for await (const order of api.paginate('/api/v1/orders', { params: { query: { limit: 2 } } })) seen.push(order.id);
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(orders.map((o) => o.id)));

    // Another clinic's order is unknown; the error carries the code and the answer's request id.
    const answer = await api.GET('/api/v1/orders/{id}', { params: { path: { id: foreign.id } } });
    let thrown: unknown;
    try {
      unwrap(answer);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(BrandAdminError);
    expect(thrown).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: answer.response.headers.get('x-request-id') });
    expect((thrown as BrandAdminError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    // A page that fails ends the loop with the error (no key: 401).
    const anonymous = createClient({ baseUrl });
    await expect(async () => {
      for await (const _ of anonymous.paginate('/api/v1/orders')) expect.fail('no item without a key');
    }).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('compiles the workflow under tsc --strict, and refuses what must not compile', async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
    const run = promisify(execFile);
    const outcome = await run(process.execPath, [tsc, '-p', 'clients/typescript/tsconfig.json', '--strict', '--pretty', 'false'], {
      cwd: root,
    }).then(
      () => ({ code: 0, output: '' }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    expect(outcome.output).toBe('');
    expect(outcome.code).toBe(0);
  }, 120_000);
});
