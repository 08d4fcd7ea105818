// The clinic's catalog (its offerings of global products), pharmacy coverages, tenant products and
// discontinued products still in use. One query per call.
import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import { rowsOf } from '../../../platform/db/sql';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import type { CatalogItem } from './schemas';

interface CatalogRow {
  id: string;
  name: string;
  slug: string;
  categories: string[] | null;
  imageUrl: string | null;
  description: string | null;
  requiresCooler: boolean;
  pharmacyPriceCents: number;
  facilitationFeeCents: number;
  priceCents: number | null;
  pharmacyName: string | null;
  pharmacyRole: string | null;
  tenantProductId: string;
}

/**
 * GET /catalog and GET /brand/product-catalog: the global products the clinic offers through an
 * active tenant product, discontinued ones left out, by name.
 */
export async function listCatalog({ db, clinicId }: HandlerContext): Promise<CatalogItem[]> {
  const rows = await rowsOf<CatalogRow>(
    db,
    sql`
    select g.id, g.name, g.slug, g.categories, coalesce(o.image_url, g.image_url) as "imageUrl", g.description,
      g.requires_cooler as "requiresCooler", g.pharmacy_base_price_cents as "pharmacyPriceCents",
      tp.facilitation_fee_cents as "facilitationFeeCents", tp.price_cents as "priceCents",
      cov.name as "pharmacyName", cov.role as "pharmacyRole", tp.id as "tenantProductId"
    from tenant_products tp
    join global_products g on g.id = tp.global_product_id
    left join global_product_image_overrides o on o.clinic_id = tp.clinic_id and o.global_product_id = g.id
    left join lateral (
      select ph.name, pc.role from pharmacy_coverages pc join pharmacies ph on ph.id = pc.pharmacy_id
      where pc.global_product_id = g.id order by (pc.role = 'primary') desc, pc.created_at, pc.id limit 1
    ) cov on true
    where tp.clinic_id = ${clinicId} and tp.is_active and not g.is_discontinued
    order by g.name, g.id`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    slug: r.slug,
    categories: r.categories ?? [],
    imageUrl: r.imageUrl,
    description: r.description,
    requiresCooler: r.requiresCooler,
    pharmacyPrice: centsToAmount(r.pharmacyPriceCents),
    facilitationFee: centsToAmount(r.facilitationFeeCents),
    price: centsToAmountOrNull(r.priceCents),
    pharmacyName: r.pharmacyName,
    pharmacyRole: r.pharmacyRole === 'primary' || r.pharmacyRole === 'backup' ? r.pharmacyRole : null,
    tenantProductId: r.tenantProductId,
  }));
}
