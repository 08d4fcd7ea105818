// Each live demo clinic's own products (beside the shared global products), each with one pharmacy
// coverage; the third is inactive. Tenant products are seeded by seedPrograms, not here.
// Ids: product n of clinic c = demoId(products, c*100 + n); its coverage = demoId(products, c*100 + 50 + n).

import { productPharmacyCoverages, products } from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { SEED_PHARMACIES } from './catalog';
import { DEMO_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

export const seedProductId = (clinicIndex: number, n: number) => demoId(B.products, clinicIndex * 100 + n);
const seedProductCoverageId = (clinicIndex: number, n: number) => demoId(B.products, clinicIndex * 100 + 50 + n);

/** n, name, slug, category, pharmacy price (cents), pharmacy product id, active. */
const OWN_PRODUCTS: [number, string, string, string, number, string, boolean][] = [
  [1, 'Vitamin B12 Injection', 'vitamin-b12-injection', 'longevity', 3_500, 'B12-10ML', true],
  [2, 'Glutathione Injection', 'glutathione-injection', 'skin', 6_900, 'GLU-200', true],
  [3, 'Lipo-C Booster', 'lipo-c-booster', 'weight_loss', 4_200, 'LIPOC-30', false],
];

export async function seedProducts(db: Database): Promise<void> {
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const brand = c === 0 ? 'Demo Clinic' : 'Harbor Clinic';
    await db
      .insert(products)
      .values(
        OWN_PRODUCTS.map(([n, name, slug, category, price, pharmacyProductId, isActive]) => ({
          id: seedProductId(c, n),
          clinicId,
          name,
          slug,
          description: `${name}, compounded for ${brand}.`,
          category,
          categories: [category],
          isActive,
          pharmacyProvider: SEED_PHARMACIES[(n + c) % SEED_PHARMACIES.length]!.name,
          pharmacyPriceCents: price,
          pharmacyProductId,
          brandName: `${brand} ${name}`,
        })),
      )
      .onConflictDoUpdate({
        target: products.id,
        set: refresh([
          'name',
          'slug',
          'description',
          'category',
          'categories',
          'isActive',
          'pharmacyProvider',
          'pharmacyPriceCents',
          'pharmacyProductId',
          'brandName',
        ]),
      });

    await db
      .insert(productPharmacyCoverages)
      .values(
        OWN_PRODUCTS.map(([n, name, , , price]) => ({
          id: seedProductCoverageId(c, n),
          clinicId,
          productId: seedProductId(c, n),
          pharmacyId: SEED_PHARMACIES[(n + c) % SEED_PHARMACIES.length]!.id,
          role: 'primary',
          customName: `${name} (${brand})`,
          priceCents: price,
        })),
      )
      .onConflictDoUpdate({ target: productPharmacyCoverages.id, set: refresh(['role', 'customName', 'priceCents']) });
  }
}
