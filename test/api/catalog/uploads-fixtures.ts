// Shared by the upload route tests: rows to upload onto, and a multipart request through the app with
// the same strict response check t.request() applies (t.request() JSON-encodes bodies, so it cannot
// send a FormData).
import { randomUUID } from 'node:crypto';
import { globalProducts, products, programs } from '../../../drizzle/schema';
import type { Database } from '../../../src/platform/db/client';
import { type TestApp, withoutRequestId } from '../../helpers/app';
import { assertDeclaredResponse } from '../../helpers/strict-response';

const unique = () => randomUUID().slice(0, 8);

export async function insertProgram(db: Database, clinicId: string, values: Partial<typeof programs.$inferInsert> = {}) {
  const [row] = await db
    .insert(programs)
    .values({ name: `Program ${unique()}`, ...values, clinicId })
    .returning();
  return row!;
}

export async function insertProduct(db: Database, clinicId: string, values: Partial<typeof products.$inferInsert> = {}) {
  const suffix = unique();
  const [row] = await db
    .insert(products)
    .values({ name: `Product ${suffix}`, slug: `product-${suffix}`, ...values, clinicId })
    .returning();
  return row!;
}

export async function insertGlobalProduct(db: Database, values: Partial<typeof globalProducts.$inferInsert> = {}) {
  const suffix = unique();
  const [row] = await db
    .insert(globalProducts)
    .values({
      name: `Global ${suffix}`,
      slug: `global-${suffix}`,
      pharmacyBasePriceCents: 10_000,
      imageUrl: 'https://images.example.test/shared.png',
      ...values,
    })
    .returning();
  return row!;
}

let ip = 0;

/** POST a FormData (or any BodyInit) through the app with a key; the response is checked against its declaration. */
export async function send(
  t: TestApp,
  path: string,
  options: { key?: string; body?: BodyInit | null; headers?: Record<string, string>; method?: string } = {},
) {
  const method = options.method ?? 'POST';
  ip++;
  const headers: Record<string, string> = { 'cf-connecting-ip': `10.77.${(ip >> 8) & 255}.${ip & 255}`, ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  const res = await t.app.request(path, { method, body: options.body ?? null, headers });
  await assertDeclaredResponse(t.app, { method, path }, res);
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are loosely typed in tests, for assertions
  return (await withoutRequestId(res)) as Omit<Response, 'json'> & { json(): Promise<any> };
}
