// The typed client against the API over HTTP: a real Node HTTP server in front of the test app (the
// Worker's app, test/helpers/app.ts, real PostgreSQL; every answer also checked against its declared
// schema with no undeclared field), and the workflow file compiled under `tsc --strict`.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app';
import { makeTenant } from '../../../test/helpers/factories';
import { makeOrder, makeOrderItem } from '../../../test/helpers/order-fixtures';
import { makeGlobalProduct, makeProgram, makeTenantProduct } from '../../../test/helpers/program-fixtures';
import { createClient } from '../src/index';
import { runWorkflow } from './workflow';

const t = useTestApp();
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  // Node's request in, a fetch Request to the app, its Response back out.
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await t.send(req.url ?? '/', { method: req.method, headers, body });
    answer.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.writeHead(answer.status);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
