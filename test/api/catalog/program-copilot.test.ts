import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { enrollments, globalProducts, patients, programProducts, programs, tenantProducts } from '../../../drizzle/schema';
import { DEFAULT_COPILOT_MODEL } from '../../../src/config';
import { providersFor } from '../../../src/platform/providers';
import type { AiProvider, JsonGenerationRequest } from '../../../src/platform/providers/ai/types';
import { parseModelAnswer, WorkersAiProvider } from '../../../src/platform/providers/ai/workers-ai';
import { ProviderError } from '../../../src/platform/providers/errors';
import { buildTestApp, useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const unique = () => randomUUID().slice(0, 8);
const DAY = 86_400_000;

async function makeGlobalProduct(values: Partial<typeof globalProducts.$inferInsert> = {}) {
  const u = unique();
  const [row] = await t.db
    .insert(globalProducts)
    .values({ name: `Product ${u}`, slug: `product-${u}`, pharmacyBasePriceCents: 10_000, ...values })
    .returning();
  return row!;
}

async function makeProgram(clinicId: string, values: Partial<typeof programs.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(programs)
    .values({ clinicId, name: `Program ${unique()}`, ...values })
    .returning();
  return row!;
}

async function addProduct(
  clinicId: string,
  programId: string,
  globalProductId: string,
  values: Partial<typeof programProducts.$inferInsert> = {},
) {
  await t.db.insert(programProducts).values({ clinicId, programId, globalProductId, ...values });
}

async function enroll(clinicId: string, programId: string, status: 'active' | 'cancelled') {
  const u = unique();
  const [patient] = await t.db
    .insert(patients)
    .values({ clinicId, firstName: 'Pat', lastName: u, email: `pat-${u}@example.test` })
    .returning();
  await t.db
    .insert(enrollments)
    .values({ clinicId, patientId: patient!.id, programId, status, chargeAmountCents: 10_000, netAmountCents: 4_000 });
}

/** A provider that records what it was asked and answers a fixture (or fails). */
class FakeProvider implements AiProvider {
  readonly name = 'fake';
  readonly model = 'fake-model-1';
  requests: JsonGenerationRequest[] = [];
  constructor(private readonly answer: (request: JsonGenerationRequest) => unknown) {}
  async generateJson(request: JsonGenerationRequest) {
    this.requests.push(request);
    return this.answer(request);
  }
}

/** The catalogue ids the prompt offered, in order. */
const offeredIds = (request: JsonGenerationRequest) => [...request.prompt.matchAll(/^([0-9a-f-]{36}) \|/gm)].map((m) => m[1]);

describe('GET /api/v1/programs/copilot/suggestions', () => {
  it("computes suggestions from the clinic's own programs, products, prices and enrollments", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const now = Date.now();
    const discontinued = await makeGlobalProduct({ name: `Liraglutide ${unique()}`, isDiscontinued: true });
    const unpriced = await makeGlobalProduct();
    const priced = await makeGlobalProduct();
    const placeholderPriced = await makeGlobalProduct();
    await t.db.insert(tenantProducts).values({ clinicId: clinic.id, globalProductId: placeholderPriced.id, placeholderFeeCents: 2_000 });

    const alpha = await makeProgram(clinic.id, { name: 'Alpha', state: 'live', isActive: true });
    await addProduct(clinic.id, alpha.id, discontinued.id, { programBaseFeeCents: 5_000 });
    await addProduct(clinic.id, alpha.id, unpriced.id);
    await addProduct(clinic.id, alpha.id, priced.id, { clinicFeeOverrideCents: 7_000 });
    await addProduct(clinic.id, alpha.id, placeholderPriced.id);
    await enroll(clinic.id, alpha.id, 'active');
    const bravo = await makeProgram(clinic.id, { name: 'Bravo', state: 'draft', createdAt: new Date(now - 30 * DAY - 3_600_000) });
    const charlie = await makeProgram(clinic.id, { name: 'Charlie', state: 'live', isActive: true });
    await addProduct(clinic.id, charlie.id, priced.id, { programBaseFeeCents: 3_000 });
    await enroll(clinic.id, charlie.id, 'cancelled');
    await makeProgram(clinic.id, { name: 'Delta', state: 'retired' });
    const echo = await makeProgram(clinic.id, { name: 'Echo', state: 'paused' });
    await addProduct(clinic.id, echo.id, priced.id, { programBaseFeeCents: 3_000, isActive: false });
    await makeProgram(clinic.id, { name: 'Foxtrot', state: 'draft' }).then((p) =>
      addProduct(clinic.id, p.id, priced.id, { programBaseFeeCents: 1 }),
    );

    const res = await t.request('/api/v1/programs/copilot/suggestions', { key });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.generatedBy).toBe('rules');
    expect(data.copilotAvailable).toBe(false);
    expect(data.suggestions.map((s: { type: string; programName: string; count: number }) => [s.type, s.programName, s.count])).toEqual([
      ['discontinued_product_in_use', 'Alpha', 1],
      ['unpriced_products', 'Alpha', 1],
      ['program_without_products', 'Bravo', 1],
      ['program_without_products', 'Echo', 1],
      ['stale_draft', 'Bravo', 30],
      ['live_program_without_patients', 'Charlie', 1],
    ]);
    expect(data.suggestions[0]).toMatchObject({
      priority: 'high',
      action: 'replace_product',
      programId: alpha.id,
      globalProductId: discontinued.id,
      productName: discontinued.name,
      headline: `${discontinued.name} is discontinued`,
    });
    expect(data.suggestions[1]).toMatchObject({
      priority: 'high',
      action: 'set_prices',
      globalProductId: null,
      productName: null,
      headline: '1 product without a price',
    });
    expect(data.suggestions[2]).toMatchObject({ programId: bravo.id, action: 'add_products' });
    expect(data.suggestions[5]).toMatchObject({ programId: charlie.id, priority: 'low', action: 'promote_or_pause' });
  });

  it("shows nothing of another clinic's data, in one query after the key lookup", async () => {
    const { key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    await makeProgram(other.clinic.id, { name: 'Not yours', state: 'live' });
    await t.flush();
    t.queries.length = 0;
    const res = await t.request('/api/v1/programs/copilot/suggestions', { key });
    await t.flush();
    expect((await res.json()).data.suggestions).toEqual([]);
    expect(t.queries.filter((q) => !q.includes('"request_logs"'))).toHaveLength(2);
    expect((await (await t.request('/api/v1/programs/copilot/suggestions', { key: other.key })).json()).data.suggestions).toHaveLength(2);
  });

  it('says whether the copilot has a model, and is open to AI-connector keys', async () => {
    const { clinic } = await makeTenant(t.db);
    const connector = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    const app = buildTestApp(t.db, t.databaseUrl, { ai: new FakeProvider(() => ({})) });
    const res = await app.request('/api/v1/programs/copilot/suggestions', { key: connector.raw });
    expect(res.status).toBe(200);
    expect((await res.json()).data.copilotAvailable).toBe(true);
  });
});

describe('POST /api/v1/programs/copilot/draft', () => {
  const draft = (key: string, body: unknown, ai?: AiProvider) =>
    (ai ? buildTestApp(t.db, t.databaseUrl, { ai }) : t).request('/api/v1/programs/copilot/draft', { key, body });

  it('answers 503 COPILOT_UNAVAILABLE without a model (after validating the body)', async () => {
    const { key } = await makeTenant(t.db);
    const res = await draft(key, { goal: 'A weight-loss program' });
    expect(res.status).toBe(503);
    expect((await res.json()).code).toBe('COPILOT_UNAVAILABLE');
    expect((await draft(key, { goal: '' })).status).toBe(400);
  });

  it('asks the model with the catalogue of the category and returns a checked draft, creating nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const category = `cat_${unique()}`;
    const a = await makeGlobalProduct({
      name: `A ${unique()}`,
      categories: [category],
      pharmacyBasePriceCents: 12_900,
      packDurationMonths: 1,
    });
    const b = await makeGlobalProduct({
      name: `B ${unique()}`,
      categories: [category, 'other'],
      pharmacyBasePriceCents: 34_500,
      packDurationMonths: 3,
    });
    const gone = await makeGlobalProduct({ name: `C ${unique()}`, categories: [category], isDiscontinued: true });
    const elsewhere = await makeGlobalProduct({ name: `D ${unique()}`, categories: [`cat_${unique()}`] });
    const ai = new FakeProvider(() => ({
      name: '  Lean\u0000 Start\nProgram ',
      description: 'Monthly care.\nWith check-ins.\u0007',
      rationale: 'GLP-1 first.',
      products: [
        { globalProductId: b.id.toUpperCase(), reason: 'Three months\tper pack' },
        { globalProductId: randomUUID(), reason: 'made up' },
        { globalProductId: elsewhere.id, reason: 'not offered' },
        { globalProductId: gone.id, reason: 'discontinued' },
        { globalProductId: b.id, reason: 'twice' },
        { globalProductId: a.id, reason: 'Monthly' },
      ],
    }));
    const programsBefore = await t.db.$count(programs, eq(programs.clinicId, clinic.id));
    const res = await draft(key, { goal: 'Weight loss for busy people', category, maxProducts: 3 }, ai);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({
      name: 'Lean Start Program',
      description: 'Monthly care.\nWith check-ins.',
      rationale: 'GLP-1 first.',
      products: [
        {
          globalProductId: b.id,
          name: b.name,
          categories: [category, 'other'],
          pharmacyBasePrice: 345,
          packDurationMonths: 3,
          reason: 'Three months per pack',
        },
        { globalProductId: a.id, name: a.name, categories: [category], pharmacyBasePrice: 129, packDurationMonths: 1, reason: 'Monthly' },
      ],
      persisted: false,
      provider: 'fake',
      model: 'fake-model-1',
    });
    expect(await t.db.$count(programs, eq(programs.clinicId, clinic.id))).toBe(programsBefore);

    const [request] = ai.requests;
    expect(offeredIds(request!).sort()).toEqual([a.id, b.id].sort());
    expect(request!.prompt).toContain('Goal of the program: Weight loss for busy people');
    expect(request!.prompt).toContain('between 1 and 3 products');
    expect(request!.system).toContain('Use only ids from the catalogue');
    expect(request!.schema).toMatchObject({ type: 'object', required: ['name', 'description', 'rationale', 'products'] });
  });

  it('answers 502 COPILOT_PROVIDER_ERROR when the model fails or gives nothing usable', async () => {
    const { key } = await makeTenant(t.db);
    const category = `cat_${unique()}`;
    const product = await makeGlobalProduct({ categories: [category] });
    const answers: (() => unknown)[] = [
      () => {
        throw new ProviderError('ai', 'fake', 'unavailable', 'Workers AI call failed: 3040 capacity');
      },
      () => ({ description: 'no name', products: [{ globalProductId: product.id }] }),
      () => ({ name: 'No products', products: [{ globalProductId: randomUUID() }] }),
      () => 'just text',
      () => null,
    ];
    for (const answer of answers) {
      const res = await draft(key, { goal: 'Anything at all', category }, new FakeProvider(answer));
      expect(res.status).toBe(502);
      expect((await res.json()).code).toBe('COPILOT_PROVIDER_ERROR');
    }
  });

  it('validates the body with 400 naming the field', async () => {
    const { key } = await makeTenant(t.db);
    const ai = new FakeProvider(() => ({}));
    const cases: [unknown, string][] = [
      [{}, 'body.goal'],
      [{ goal: 'ab' }, 'body.goal'],
      [{ goal: 'x'.repeat(1001) }, 'body.goal'],
      [{ goal: 'ok goal', category: 'a\u0000b' }, 'body.category'],
      [{ goal: 'ok goal', maxProducts: 0 }, 'body.maxProducts'],
      [{ goal: 'ok goal', maxProducts: 11 }, 'body.maxProducts'],
      [{ goal: 'ok goal', category: `none_${unique()}` }, 'body.category'],
    ];
    for (const [body, field] of cases) {
      const res = await draft(key, body, ai);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    expect((await draft(key, { goal: 'ok goal', extra: 1 }, ai)).status).toBe(400);
    expect(ai.requests).toEqual([]);
  });

  it('needs the write scope, and AI-connector keys may not call it', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    const res = await draft(readOnly.raw, { goal: 'A weight-loss program' });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    const connector = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    expect((await (await draft(connector.raw, { goal: 'A weight-loss program' })).json()).code).toBe('KEY_KIND_NOT_ALLOWED');
  });
});

describe('WorkersAiProvider (the Workers AI binding)', () => {
  const request: JsonGenerationRequest = { system: 'sys', prompt: 'user', schema: { type: 'object' }, maxTokens: 100 };

  it('sends the messages, JSON-mode schema and limits to env.AI.run with the model', async () => {
    const calls: unknown[][] = [];
    const binding = {
      run: async (...args: unknown[]) => {
        calls.push(args);
        return { response: '{"name":"X"}' };
      },
    };
    const provider = new WorkersAiProvider(binding);
    expect(provider.model).toBe(DEFAULT_COPILOT_MODEL);
    expect(await provider.generateJson(request)).toEqual({ name: 'X' });
    expect(calls).toEqual([
      [
        DEFAULT_COPILOT_MODEL,
        {
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'user' },
          ],
          response_format: { type: 'json_schema', json_schema: { type: 'object' } },
          max_tokens: 100,
          temperature: 0.2,
        },
      ],
    ]);
  });

  it('reads object, text and fenced answers; anything else or a failing binding is a ProviderError', async () => {
    expect(parseModelAnswer({ response: { a: 1 } })).toEqual({ a: 1 });
    expect(parseModelAnswer({ response: '```json\n{"a":2}\n```' })).toEqual({ a: 2 });
    for (const bad of [{ response: 'not json' }, { response: '' }, {}, null]) expect(() => parseModelAnswer(bad)).toThrow(ProviderError);
    const failing = new WorkersAiProvider(
      {
        run: async () => {
          throw new Error('3040: Capacity temporarily exceeded');
        },
      },
      '@cf/x',
    );
    await expect(failing.generateJson(request)).rejects.toThrow(/Capacity/);
  });

  it('is chosen when the deployment has an AI binding, with COPILOT_MODEL', () => {
    expect(providersFor(t.config, {}, t.db).ai).toBeNull();
    const provider = providersFor(
      { ...t.config, copilot: { model: '@cf/meta/llama-3.1-8b-instruct' } },
      { AI: { run: async () => ({}) } },
      t.db,
    ).ai;
    expect(provider).toBeInstanceOf(WorkersAiProvider);
    expect(provider!.model).toBe('@cf/meta/llama-3.1-8b-instruct');
  });
});
