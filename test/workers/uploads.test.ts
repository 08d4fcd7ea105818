// The upload path in workerd: the R2 adapter against the UPLOADS bucket binding that wrangler.toml
// declares (miniflare gives a local bucket, as `wrangler dev` does), and an upload through the built
// Worker whose bytes land in that bucket.
import { env, exports } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { globalProductImageOverrides, globalProducts, uploads } from '../../drizzle/schema';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/client';
import { R2Storage } from '../../src/platform/providers/storage/r2';
import { IMAGES } from '../helpers/images';

const seeded = inject('workersDatabase');

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openDatabase({ url: env.DATABASE_URL!, driver: 'pg' });
});
/** Connections to the test database other than this file's own. */
async function otherConnections(): Promise<number> {
  const result = await handle.db.execute(
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
}

afterAll(async () => {
  // Let the Worker's per-request connections close (in waitUntil) before this file's runtime goes
  // away: miniflare's local Hyperdrive proxy has no 'error' listener on its sockets, so a connection
  // still open at teardown can end in an unhandled ECONNRESET that fails the whole run.
  const deadline = Date.now() + 10_000;
  while (handle && (await otherConnections()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await handle?.close();
});

describe('uploads in workerd', () => {
  it('has the UPLOADS bucket binding from wrangler.toml', () => {
    expect(env.UPLOADS).toBeDefined();
  });

  it('R2Storage puts, gets and deletes objects in the bound bucket', async () => {
    const storage = new R2Storage(env.UPLOADS!);
    const key = `clinics/test/program_image/${crypto.randomUUID()}.png`;
    expect(await storage.put(key, IMAGES.png, 'image/png')).toEqual({ key, url: `/uploads/${key}` });
    const object = await env.UPLOADS!.head(key);
    expect(object?.httpMetadata?.contentType).toBe('image/png');
    expect(object?.size).toBe(IMAGES.png.byteLength);
    const read = await storage.get(key);
    expect(read?.contentType).toBe('image/png');
    expect([...read!.bytes]).toEqual([...IMAGES.png]);
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
  });

  it('POST /api/v1/global-products/{id}/upload-image stores the bytes in R2 and records them', async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const [product] = await handle.db
      .insert(globalProducts)
      .values({ name: `Workerd product ${suffix}`, slug: `workerd-${suffix}`, pharmacyBasePriceCents: 1_000 })
      .returning();
    const form = new FormData();
    form.append('image', new Blob([IMAGES.webp], { type: 'image/png' }), 'lies.png');
    const res = await exports.default.fetch(
      new Request(`http://brand-admin.test/api/v1/global-products/${product!.id}/upload-image`, {
        method: 'POST',
        body: form,
        headers: { 'x-api-key': seeded.apiKey },
      }),
    );
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { imageUrl: string; upload: { id: string; key: string; contentType: string } } };
    expect(data.upload.contentType).toBe('image/webp');
    expect(data.upload.key).toMatch(new RegExp(`^clinics/${seeded.clinicId}/global_product_image/[0-9a-f-]{36}\\.webp$`));

    const object = await env.UPLOADS!.get(data.upload.key);
    expect(object?.httpMetadata?.contentType).toBe('image/webp');
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(IMAGES.webp);
    const [row] = await handle.db.select().from(uploads).where(eq(uploads.id, data.upload.id));
    expect(row).toMatchObject({ clinicId: seeded.clinicId, objectKey: data.upload.key, purpose: 'global_product_image' });
    const [override] = await handle.db
      .select({ imageUrl: globalProductImageOverrides.imageUrl })
      .from(globalProductImageOverrides)
      .where(eq(globalProductImageOverrides.globalProductId, product!.id));
    expect(override?.imageUrl).toBe(data.imageUrl);
  });

  it('refuses an SVG in workerd too, storing nothing', async () => {
    const [product] = await handle.db.select({ id: globalProducts.id }).from(globalProducts).limit(1);
    const form = new FormData();
    form.append('image', new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/png' }), 'x.png');
    const before = (await env.UPLOADS!.list()).objects.length;
    const res = await exports.default.fetch(
      new Request(`http://brand-admin.test/api/v1/global-products/${product!.id}/upload-image`, {
        method: 'POST',
        body: form,
        headers: { 'x-api-key': seeded.apiKey },
      }),
    );
    expect(res.status).toBe(400);
    expect((await env.UPLOADS!.list()).objects.length).toBe(before);
  });
});
