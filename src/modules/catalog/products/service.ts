// Products: the clinic's own products and, beside them, the shared platform (global) products in the
// same Product shape. Every read is one query (a union with the coverages as json).
import { and, eq, like, or, type SQL, sql } from 'drizzle-orm';
import { products } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { rowsOf } from '../../../platform/db/sql';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount } from '../../../platform/values/money';
import type { CreateProductBody, Product, UpdateProductBody } from './schemas';
import { nextSlug, slugify } from './slugs';

interface ProductRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  category: string | null;
  categories: string[] | null;
  isActive: boolean;
  pharmacyProvider: string | null;
  pharmacyPriceCents: number;
  pharmacyProductId: string | null;
  brandName: string | null;
  imageUrl: string | null;
  source: 'clinic' | 'platform';
  pharmacyCoverages: { id: string; customName: string | null; pharmacy: { id: string; name: string; slug: string } }[];
}

export function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    category: row.category,
    categories: row.categories ?? [],
    isActive: row.isActive,
    pharmacyProvider: row.pharmacyProvider,
    pharmacyPrice: centsToAmount(row.pharmacyPriceCents),
    pharmacyProductId: row.pharmacyProductId,
    brandName: row.brandName,
    imageUrl: row.imageUrl,
    pharmacyCoverages: (row.pharmacyCoverages ?? []).map((c) => ({
      id: c.id,
      customName: c.customName,
      pharmacy: { id: c.pharmacy.id, name: c.pharmacy.name, slug: c.pharmacy.slug },
    })),
    source: row.source,
  };
}

const coverageJson = (alias: string) =>
  sql.raw(`json_build_object('id', ${alias}.id, 'customName', ${alias}.custom_name,
    'pharmacy', json_build_object('id', ph.id, 'name', ph.name, 'slug', ph.slug))`);

/**
 * Every product the clinic sees, in the Product shape: its own (rank 0) and the platform's (rank 1).
 * A platform product maps as documented in docs/products.md: pharmacyProvider is the primary
 * pharmacy's name, pharmacyPrice the base price, imageUrl the clinic's override else the shared image.
 */
function productUnion(clinicId: string, id?: string): SQL {
  const ownFilter = id ? sql`and p.id = ${id}` : sql``;
  const platformFilter = id ? sql`where g.id = ${id}` : sql``;
  return sql`
    select p.id, p.name, p.slug, p.description, p.category, p.categories, p.is_active as "isActive",
      p.pharmacy_provider as "pharmacyProvider", p.pharmacy_price_cents as "pharmacyPriceCents",
      p.pharmacy_product_id as "pharmacyProductId", p.brand_name as "brandName", p.image_url as "imageUrl",
      'clinic'::text as source, 0 as rank, p.created_at as "createdAt",
      coalesce((select json_agg(${coverageJson('c')} order by (c.role = 'primary') desc, ph.name, c.id)
        from product_pharmacy_coverages c join pharmacies ph on ph.id = c.pharmacy_id
        where c.product_id = p.id and c.clinic_id = ${clinicId}), '[]'::json) as "pharmacyCoverages"
    from products p
    where p.clinic_id = ${clinicId} ${ownFilter}
    union all
    select g.id, g.name, g.slug, g.description, g.categories[1], g.categories, not g.is_discontinued,
      (select ph.name from pharmacy_coverages pc join pharmacies ph on ph.id = pc.pharmacy_id
        where pc.global_product_id = g.id order by (pc.role = 'primary') desc, pc.created_at, pc.id limit 1),
      g.pharmacy_base_price_cents, null, null, coalesce(o.image_url, g.image_url),
      'platform'::text, 1, g.created_at,
      coalesce((select json_agg(${coverageJson('pc')} order by (pc.role = 'primary') desc, ph.name, pc.id)
        from pharmacy_coverages pc join pharmacies ph on ph.id = pc.pharmacy_id
        where pc.global_product_id = g.id), '[]'::json)
    from global_products g
    left join global_product_image_overrides o on o.global_product_id = g.id and o.clinic_id = ${clinicId}
    ${platformFilter}`;
}

/** Own products newest first, then platform products by name. */
const ORDER = sql.raw(`order by u.rank, case when u.rank = 0 then u."createdAt" end desc, u.name, u.id`);

/** GET /products: the whole list (own plus platform), not paged (GET /products-management pages it). */
export async function listProducts({ db, clinicId }: HandlerContext): Promise<Product[]> {
  const rows = await rowsOf<ProductRow>(db, sql`select u.* from (${productUnion(clinicId)}) u ${ORDER}`);
  return rows.map(toProduct);
}

/** GET /products-management: the same list, paged, with its total in the same query. */
export async function listProductsPage({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await rowsOf<ProductRow & { total: number }>(
    db,
    sql`
    select u.*, ${totalCount()} as total from (${productUnion(clinicId)}) u ${ORDER}
    limit ${query.limit} offset ${pageOffset(query)}`,
  );
  const page = await paginate(query, rows, async () => {
    const [row] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from (${productUnion(clinicId)}) u`);
    return row?.n ?? 0;
  });
  return { products: page.rows.map(toProduct), pagination: page.pagination };
}

/** A product id of the clinic or a global product id; anything else is the same 404. */
export async function getProduct({ db, clinicId }: HandlerContext, id: string): Promise<Product> {
  if (!isUuid(id)) throw notFound('Product');
  const [row] = await rowsOf<ProductRow>(db, sql`select u.* from (${productUnion(clinicId, id)}) u ${ORDER} limit 1`);
  if (!row) throw notFound('Product');
  return toProduct(row);
}

const MAX_SLUG_ATTEMPTS = 5;

/** Creates a product with a slug unique within the clinic (name-based; -2, -3... when taken). */
export async function createProduct({ db, clinicId }: HandlerContext, input: CreateProductBody): Promise<Product> {
  const base = slugify(input.name);
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const taken = await db
      .select({ slug: products.slug })
      .from(products)
      .where(forClinic(db, clinicId).where(products, or(eq(products.slug, base), like(products.slug, `${base}-%`))));
    const slug = nextSlug(base, new Set(taken.map((r) => r.slug)));
    const [row] = await db
      .insert(products)
      .values({
        clinicId,
        name: input.name,
        slug,
        description: input.description ?? null,
        category: input.category ?? null,
        categories: input.categories ?? [],
        isActive: input.isActive ?? true,
        pharmacyProvider: input.pharmacyProvider ?? null,
        pharmacyPriceCents: input.pharmacyPrice,
        pharmacyProductId: input.pharmacyProductId ?? null,
        brandName: input.brandName ?? null,
      })
      .onConflictDoNothing({ target: [products.clinicId, products.slug] })
      .returning();
    // A concurrent creation took the slug between the two statements: look again.
    if (row) return toProduct({ ...row, source: 'clinic', pharmacyCoverages: [] });
  }
  throw conflict('CONFLICT', 'Could not find a free slug for this product name; try again');
}

/** Partial update of the clinic's own product; a platform product id or another clinic's id is a 404. */
export async function updateProduct(ctx: HandlerContext, id: string, input: UpdateProductBody): Promise<Product> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound('Product');
  const values: Partial<typeof products.$inferInsert> = { updatedAt: ctx.now() };
  if (input.name !== undefined) values.name = input.name;
  if (input.slug !== undefined) values.slug = input.slug;
  if (input.description !== undefined) values.description = input.description;
  if (input.pharmacyPrice !== undefined) values.pharmacyPriceCents = input.pharmacyPrice;
  if (input.pharmacyProductId !== undefined) values.pharmacyProductId = input.pharmacyProductId;
  if (input.isActive !== undefined) values.isActive = input.isActive;
  if (input.category !== undefined) values.category = input.category;
  if (input.categories !== undefined) values.categories = input.categories;
  if (input.brandName !== undefined) values.brandName = input.brandName;
  if (input.pharmacyProvider !== undefined) values.pharmacyProvider = input.pharmacyProvider;
  try {
    const [row] = await db
      .update(products)
      .set(values)
      .where(and(eq(products.clinicId, clinicId), eq(products.id, id)))
      .returning({ id: products.id });
    if (!row) throw notFound('Product');
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('CONFLICT', 'body.slug: another product of this clinic has this slug');
    throw error;
  }
  return getProduct(ctx, id);
}
