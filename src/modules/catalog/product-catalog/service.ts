// The clinic's catalog (its offerings of global products), pharmacy coverages, tenant products and
// discontinued products still in use. One query per call.
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp, rowsOf } from '../../../platform/db/sql';
import { notFound } from '../../../platform/http/errors';
import { isUuid } from '../../../platform/http/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/http/money';
import type { CatalogItem, DiscontinuedInUse, PharmacyCoverage, TenantProduct } from '../products/schemas';

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
export async function listCatalog(db: Queryable, clinicId: string): Promise<CatalogItem[]> {
  const rows = await rowsOf<CatalogRow>(db, sql`
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
    order by g.name, g.id`);
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

interface CoverageJson {
  id: string;
  customName: string | null;
  role: string;
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
export async function listPharmacyCoverages(db: Queryable, clinicId: string, productId: string): Promise<PharmacyCoverage[]> {
  if (!isUuid(productId)) throw notFound('Product');
  const [row] = await rowsOf<{ coverages: CoverageJson[] }>(db, sql`
    select coalesce((select json_agg(${coverageObject('c')} order by (c.role = 'primary') desc, ph.name, c.id)
        from product_pharmacy_coverages c join pharmacies ph on ph.id = c.pharmacy_id
        where c.product_id = p.id and c.clinic_id = p.clinic_id), '[]'::json) as coverages
      from products p where p.id = ${productId} and p.clinic_id = ${clinicId}
    union all
    select coalesce((select json_agg(${coverageObject('pc')} order by (pc.role = 'primary') desc, ph.name, pc.id)
        from pharmacy_coverages pc join pharmacies ph on ph.id = pc.pharmacy_id
        where pc.global_product_id = g.id), '[]'::json)
      from global_products g where g.id = ${productId}
    limit 1`);
  if (!row) throw notFound('Product');
  return row.coverages.map((c) => ({
    id: c.id,
    customName: c.customName,
    role: c.role,
    price: centsToAmount(c.priceCents),
    pharmacy: { id: c.pharmacy.id, name: c.pharmacy.name, slug: c.pharmacy.slug },
  }));
}

interface TenantProductRow {
  id: string;
  globalProductId: string;
  facilitationFeeCents: number;
  priceCents: number | null;
  placeholderFeeCents: number | null;
  processorPriceId: string | null;
  isActive: boolean;
  questionnaireIds: string[] | null;
  createdAt: string;
  updatedAt: string;
  name: string;
  slug: string;
  categories: string[] | null;
  imageUrl: string | null;
  pharmacyBasePriceCents: number;
  packDurationMonths: number;
  requiresCooler: boolean;
  isDiscontinued: boolean;
}

/** Tenant products of the clinic (one, when `id` is given) in the GET /tenant-products shape, one query. */
async function queryTenantProducts(db: Queryable, clinicId: string, id?: string): Promise<TenantProduct[]> {
  const rows = await rowsOf<TenantProductRow>(db, sql`
    select tp.id, tp.global_product_id as "globalProductId", tp.facilitation_fee_cents as "facilitationFeeCents",
      tp.price_cents as "priceCents", tp.placeholder_fee_cents as "placeholderFeeCents",
      tp.processor_price_id as "processorPriceId", tp.is_active as "isActive",
      ${isoTimestamp(sql`tp.created_at`)} as "createdAt", ${isoTimestamp(sql`tp.updated_at`)} as "updatedAt",
      coalesce((select array_agg(s.questionnaire_id::text order by s.created_at, s.questionnaire_id)
        from tenant_product_selections s where s.tenant_product_id = tp.id and s.clinic_id = tp.clinic_id), '{}'::text[]) as "questionnaireIds",
      g.name, g.slug, g.categories, coalesce(o.image_url, g.image_url) as "imageUrl",
      g.pharmacy_base_price_cents as "pharmacyBasePriceCents", g.pack_duration_months as "packDurationMonths",
      g.requires_cooler as "requiresCooler", g.is_discontinued as "isDiscontinued"
    from tenant_products tp
    join global_products g on g.id = tp.global_product_id
    left join global_product_image_overrides o on o.clinic_id = tp.clinic_id and o.global_product_id = g.id
    where tp.clinic_id = ${clinicId} ${id ? sql`and tp.id = ${id}` : sql``}
    order by g.name, tp.id`);
  return rows.map((r) => ({
    id: r.id,
    globalProductId: r.globalProductId,
    facilitationFee: centsToAmount(r.facilitationFeeCents),
    price: centsToAmountOrNull(r.priceCents),
    placeholderFee: centsToAmountOrNull(r.placeholderFeeCents),
    processorPriceId: r.processorPriceId,
    isActive: r.isActive,
    questionnaireIds: r.questionnaireIds ?? [],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    globalProduct: {
      id: r.globalProductId,
      name: r.name,
      slug: r.slug,
      categories: r.categories ?? [],
      imageUrl: r.imageUrl,
      pharmacyBasePrice: centsToAmount(r.pharmacyBasePriceCents),
      packDurationMonths: r.packDurationMonths,
      requiresCooler: r.requiresCooler,
      isDiscontinued: r.isDiscontinued,
    },
  }));
}

/** GET /tenant-products: every offering of the clinic (active or not), by product name. */
export const listTenantProducts = (db: Queryable, clinicId: string): Promise<TenantProduct[]> => queryTenantProducts(db, clinicId);

/** One offering of the clinic in the same shape; the same 404 for unknown, malformed and foreign ids. */
export async function findTenantProduct(db: Queryable, clinicId: string, id: string): Promise<TenantProduct> {
  if (!isUuid(id)) throw notFound('Tenant product');
  const [row] = await queryTenantProducts(db, clinicId, id);
  if (!row) throw notFound('Tenant product');
  return row;
}

/**
 * GET /global-products/discontinued-in-use: discontinued global products linked (program_products,
 * active or not) to a program of the clinic that is not retired, each with those programs.
 */
export async function listDiscontinuedInUse(db: Queryable, clinicId: string): Promise<DiscontinuedInUse[]> {
  const rows = await rowsOf<{ id: string; name: string; slug: string; programs: { id: string; name: string; state: string }[] }>(
    db,
    sql`
      select g.id, g.name, g.slug,
        json_agg(json_build_object('id', p.id, 'name', p.name, 'state', p.state) order by p.name, p.id) as programs
      from program_products pp
      join programs p on p.id = pp.program_id and p.clinic_id = pp.clinic_id and p.state <> 'retired'
      join global_products g on g.id = pp.global_product_id and g.is_discontinued
      where pp.clinic_id = ${clinicId}
      group by g.id, g.name, g.slug
      order by g.name, g.id`,
  );
  return rows.map((r) => ({
    globalProductId: r.id,
    name: r.name,
    slug: r.slug,
    programs: r.programs.map((p) => ({ id: p.id, name: p.name, state: p.state })),
  }));
}
