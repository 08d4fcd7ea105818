import { sql } from 'drizzle-orm';
import type { CoverageRole } from '../../../../../drizzle/schema';
import type { HandlerContext } from '../../../../platform/context';
import { rowsOf } from '../../../../platform/db/sql';
import { notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { centsToAmount } from '../../../../platform/values/money';
import type { PharmacyCoverage } from './schemas';

interface CoverageJson {
  id: string;
  customName: string | null;
  role: CoverageRole;
  priceCents: number;
  pharmacy: { id: string; name: string; slug: string };
}

const coverageObject = (alias: string) =>
  sql.raw(`json_build_object('id', ${alias}.id, 'customName', ${alias}.custom_name, 'role', ${alias}.role,
    'priceCents', ${alias}.price_cents, 'pharmacy', json_build_object('id', ph.id, 'name', ph.name, 'slug', ph.slug))`);

/**
 * The pharmacies filling a product: a product of the clinic (product_pharmacy_coverages) or a global
 * product (pharmacy_coverages). Primary first. Unknown, another clinic's or a malformed id: 404.
 */
export async function listPharmacyCoverages({ db, clinicId }: HandlerContext, productId: string): Promise<PharmacyCoverage[]> {
  if (!isUuid(productId)) throw notFound('Product');
  const [row] = await rowsOf<{ coverages: CoverageJson[] }>(
    db,
    sql`
    select coalesce((select json_agg(${coverageObject('c')} order by (c.role = 'primary') desc, ph.name, c.id)
        from product_pharmacy_coverages c join pharmacies ph on ph.id = c.pharmacy_id
        where c.product_id = p.id and c.clinic_id = p.clinic_id), '[]'::json) as coverages
      from products p where p.id = ${productId} and p.clinic_id = ${clinicId}
    union all
    select coalesce((select json_agg(${coverageObject('pc')} order by (pc.role = 'primary') desc, ph.name, pc.id)
        from pharmacy_coverages pc join pharmacies ph on ph.id = pc.pharmacy_id
        where pc.global_product_id = g.id), '[]'::json)
      from global_products g where g.id = ${productId}
    limit 1`,
  );
  if (!row) throw notFound('Product');
  return row.coverages.map((c) => ({
    id: c.id,
    customName: c.customName,
    role: c.role,
    price: centsToAmount(c.priceCents),
    pharmacy: { id: c.pharmacy.id, name: c.pharmacy.name, slug: c.pharmacy.slug },
  }));
}
