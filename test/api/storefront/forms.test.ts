// Forms: which global product each of the clinic's intake forms (questionnaires) is for.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { formGlobalProducts, questionnaires } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeGlobalProduct } from '../../helpers/catalog-fixtures';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const PATH = '/api/v1/forms/global-products';
const UNKNOWN = '00000000-0000-4000-8000-00000000abcd';

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

async function form(clinicId: string, name = `Intake ${randomUUID().slice(0, 6)}`) {
  const [row] = await t.db.insert(questionnaires).values({ clinicId, name }).returning();
  return row!;
}

const link = (key: string, body: unknown) => t.request(PATH, { key, body });
const unlink = (key: string, body: unknown) => t.request(PATH, { key, method: 'DELETE', body });

describe('POST /api/v1/forms/global-products', () => {
  it('links a form of the clinic to a global product (201) and lists it with both names', async () => {
    const { clinic, key, readKey } = await tenant();
    const intake = await form(clinic.id, 'Weight-loss intake');
    const product = await makeGlobalProduct(t.db, { name: `Semaglutide ${randomUUID().slice(0, 4)}` });
    const res = await link(key, { formId: intake.id, globalProductId: product.id });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      formId: intake.id,
      formName: 'Weight-loss intake',
      globalProductId: product.id,
      globalProductName: product.name,
    });
    const [row] = await t.db.select().from(formGlobalProducts).where(eq(formGlobalProducts.id, data.id));
    expect(row).toMatchObject({ clinicId: clinic.id, questionnaireId: intake.id, globalProductId: product.id });

    const list = await (await t.request(PATH, { key: readKey })).json();
    expect(list.data).toEqual([data]);
    expect(list.pagination).toEqual({ page: 1, limit: 25, total: 1, totalPages: 1 });
  });

  it('refuses a second link of the same form (409), whatever the product', async () => {
    const { clinic, key } = await tenant();
    const intake = await form(clinic.id);
    const a = await makeGlobalProduct(t.db);
    const b = await makeGlobalProduct(t.db);
    expect((await link(key, { formId: intake.id, globalProductId: a.id })).status).toBe(201);
    for (const product of [a, b]) {
      const res = await link(key, { formId: intake.id, globalProductId: product.id });
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe('CONFLICT');
    }
    const rows = await t.db.select().from(formGlobalProducts).where(eq(formGlobalProducts.questionnaireId, intake.id));
    expect(rows.map((r) => r.globalProductId)).toEqual([a.id]);
  });

  it("answers 404 for another clinic's form (same body as an unknown form) and for an unknown global product", async () => {
    const { clinic, key } = await tenant();
    const other = await tenant();
    const theirs = await form(other.clinic.id);
    const mine = await form(clinic.id);
    const product = await makeGlobalProduct(t.db);
    const foreign = await link(key, { formId: theirs.id, globalProductId: product.id });
    const unknown = await link(key, { formId: UNKNOWN, globalProductId: product.id });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
    const noProduct = await link(key, { formId: mine.id, globalProductId: UNKNOWN });
    expect(noProduct.status).toBe(404);
    expect((await noProduct.json()).message).toBe('Global product not found');
    expect(await t.db.select().from(formGlobalProducts).where(eq(formGlobalProducts.clinicId, clinic.id))).toEqual([]);
  });

  it('refuses malformed ids, missing or extra fields (400), and a read-only key (403)', async () => {
    const { clinic, key, readKey } = await tenant();
    const intake = await form(clinic.id);
    const product = await makeGlobalProduct(t.db);
    for (const [body, field] of [
      [{ formId: 'x', globalProductId: product.id }, 'body.formId'],
      [{ formId: intake.id }, 'body.globalProductId'],
      [{ formId: intake.id, globalProductId: product.id, extra: 1 }, 'body'],
    ] as const) {
      const res = await link(key, body);
      expect(res.status).toBe(400);
      expect((await res.json()).errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
    expect((await (await link(readKey, { formId: intake.id, globalProductId: product.id })).json()).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/forms/global-products', () => {
  it("lists only the clinic's links, newest first", async () => {
    const { clinic, key } = await tenant();
    const other = await tenant();
    const product = await makeGlobalProduct(t.db);
    t.clock.freezeAt(Date.now());
    await link(other.key, { formId: (await form(other.clinic.id)).id, globalProductId: product.id });
    const first = (await (await link(key, { formId: (await form(clinic.id)).id, globalProductId: product.id })).json()).data;
    t.clock.advance(1_000);
    const second = (await (await link(key, { formId: (await form(clinic.id)).id, globalProductId: product.id })).json()).data;
    const list = await (await t.request(PATH, { key })).json();
    expect(list.data.map((l: { id: string }) => l.id)).toEqual([second.id, first.id]);
    const page = await (await t.request(`${PATH}?limit=1&page=2`, { key })).json();
    expect(page.data.map((l: { id: string }) => l.id)).toEqual([first.id]);
    expect(page.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
  });
});

describe('DELETE /api/v1/forms/global-products', () => {
  it('unlinks by formId (200), then answers 404; the form can be linked again', async () => {
    const { clinic, key } = await tenant();
    const intake = await form(clinic.id);
    const a = await makeGlobalProduct(t.db);
    const b = await makeGlobalProduct(t.db);
    await link(key, { formId: intake.id, globalProductId: a.id });
    const res = await unlink(key, { formId: intake.id });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ formId: intake.id, globalProductId: a.id, unlinked: true });
    expect((await unlink(key, { formId: intake.id })).status).toBe(404);
    expect((await link(key, { formId: intake.id, globalProductId: b.id })).status).toBe(201);
  });

  it("answers 404 for another clinic's linked form (same body as an unknown one) and leaves its link", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await form(other.clinic.id);
    const product = await makeGlobalProduct(t.db);
    await link(other.key, { formId: theirs.id, globalProductId: product.id });
    const foreign = await unlink(key, { formId: theirs.id });
    const unknown = await unlink(key, { formId: UNKNOWN });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect(await t.db.select().from(formGlobalProducts).where(eq(formGlobalProducts.questionnaireId, theirs.id))).toHaveLength(1);
    expect((await unlink(key, { formId: 'nope' })).status).toBe(400);
  });
});
