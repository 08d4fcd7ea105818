import { sql } from 'drizzle-orm';
import type { Queryable } from '../../../platform/db/client';
import { isoTimestamp as iso, rowsOf } from '../../../platform/db/sql';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import { countProducts, type PricingInput, priceProduct } from './pricing';
import type { Program } from './schemas';

// The SQL every program read shares, and the mappers from its rows to responses. Timestamps are
// formatted in SQL (ISO 8601, UTC) and nested rows come back as json, so one statement answers a read.

/** One product of a program with everything the pricing rules and the responses read. */
export interface ProductRow {
  id: string;
  globalProductId: string;
  displayOrder: number;
  isPatientVisible: boolean;
  isActive: boolean;
  linkSource: 'program' | 'template';
  programBaseFeeCents: number | null;
  clinicFeeOverrideCents: number | null;
  placeholderFeeCents: number | null;
  facilitationFeeCents: number | null;
  hasCoverage: boolean;
  name: string;
  slug: string;
  categories: string[];
  description: string | null;
  imageUrl: string | null;
  pharmacyBasePriceCents: number;
  packDurationMonths: number;
  vialsPerPack: number;
  supplyDays: number;
  requiresCooler: boolean;
  allowPrepay: boolean;
  isDiscontinued: boolean;
}

/** The global-product part of a product row, as json_build_object arguments (gp, tp, io aliases). */
export const globalProductJsonFields = sql`
  'globalProductId', gp.id, 'name', gp.name, 'slug', gp.slug, 'categories', gp.categories, 'description', gp.description,
  'imageUrl', coalesce(io.image_url, gp.image_url), 'pharmacyBasePriceCents', gp.pharmacy_base_price_cents,
  'packDurationMonths', gp.pack_duration_months, 'vialsPerPack', gp.vials_per_pack, 'supplyDays', gp.supply_days,
  'requiresCooler', gp.requires_cooler, 'allowPrepay', gp.allow_prepay, 'isDiscontinued', gp.is_discontinued,
  'placeholderFeeCents', tp.placeholder_fee_cents, 'facilitationFeeCents', tp.facilitation_fee_cents,
  'hasCoverage', exists (select 1 from pharmacy_coverages pc where pc.global_product_id = gp.id)`;

/** One program product `pp` as a json ProductRow; the query joins programProductJoins after `pp`. */
export const programProductJson = sql`json_build_object(
    'id', pp.id, 'displayOrder', pp.display_order, 'isPatientVisible', pp.is_patient_visible, 'isActive', pp.is_active,
    'linkSource', pp.link_source, 'programBaseFeeCents', pp.program_base_fee_cents, 'clinicFeeOverrideCents', pp.clinic_fee_override_cents,
    ${globalProductJsonFields}
  )`;

/** What programProductJson reads besides `pp`: the global product, the clinic's tenant product and image override. */
export const programProductJoins = sql`
  join global_products gp on gp.id = pp.global_product_id
  left join tenant_products tp on tp.clinic_id = pp.clinic_id and tp.global_product_id = pp.global_product_id
  left join global_product_image_overrides io on io.clinic_id = pp.clinic_id and io.global_product_id = pp.global_product_id`;

/** The products of program `p` (an alias in the outer query) as a json array in display order. */
export const programProductsJson = sql`(
  select coalesce(json_agg(${programProductJson} order by pp.display_order, pp.created_at, pp.id), '[]'::json)
  from program_products pp ${programProductJoins}
  where pp.program_id = p.id and pp.clinic_id = p.clinic_id
)`;

/** The columns of a program read (alias p), products included. */
export const programColumns = sql`
  p.id, p.name, p.description, p.state, p.is_active as "isActive", p.is_featured as "isFeatured",
  p.non_medical_service_fee_cents as "nonMedicalServiceFeeCents", p.hero_image_url as "heroImageUrl",
  p.custom_slug as "customSlug", p.accent_color as "accentColor", p.template_id as "templateId",
  p.template_version as "templateVersion", ${iso(sql`p.created_at`)} as "createdAt", ${iso(sql`p.updated_at`)} as "updatedAt",
  ${programProductsJson} as products`;

export interface ProgramRow {
  id: string;
  name: string;
  description: string | null;
  state: Program['state'];
  isActive: boolean;
  isFeatured: boolean;
  nonMedicalServiceFeeCents: number;
  heroImageUrl: string | null;
  customSlug: string | null;
  accentColor: string | null;
  templateId: string | null;
  templateVersion: number | null;
  createdAt: string;
  updatedAt: string;
  products: ProductRow[];
}

/** One program of the clinic with its products, or undefined (unknown or another clinic's). */
export async function readProgram(db: Queryable, clinicId: string, id: string): Promise<ProgramRow | undefined> {
  const [row] = await rowsOf<ProgramRow>(
    db,
    sql`select ${programColumns} from programs p where p.id = ${id} and p.clinic_id = ${clinicId}`,
  );
  return row;
}

export function pricingInput(row: ProductRow): PricingInput {
  return {
    clinicFeeOverrideCents: row.clinicFeeOverrideCents,
    programBaseFeeCents: row.programBaseFeeCents,
    tenantPlaceholderFeeCents: row.placeholderFeeCents,
    pharmacyCostCents: row.pharmacyBasePriceCents,
    facilitationFeeCents: row.facilitationFeeCents,
    hasPharmacyCoverage: row.hasCoverage,
    isActive: row.isActive,
    isDiscontinued: row.isDiscontinued,
  };
}

/** The global product's own fields of a product row (a template product has them too). */
export type GlobalProductPart = Pick<
  ProductRow,
  | 'globalProductId'
  | 'name'
  | 'slug'
  | 'categories'
  | 'description'
  | 'imageUrl'
  | 'pharmacyBasePriceCents'
  | 'packDurationMonths'
  | 'vialsPerPack'
  | 'supplyDays'
  | 'requiresCooler'
  | 'allowPrepay'
  | 'isDiscontinued'
>;

export function toGlobalProduct(row: GlobalProductPart) {
  return {
    id: row.globalProductId,
    name: row.name,
    slug: row.slug,
    categories: row.categories,
    description: row.description,
    imageUrl: row.imageUrl,
    pharmacyBasePrice: centsToAmount(row.pharmacyBasePriceCents),
    packDurationMonths: row.packDurationMonths,
    vialsPerPack: row.vialsPerPack,
    supplyDays: row.supplyDays,
    requiresCooler: row.requiresCooler,
    allowPrepay: row.allowPrepay,
    isDiscontinued: row.isDiscontinued,
  };
}

export function toProgram(row: ProgramRow): Program {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    isActive: row.isActive,
    isFeatured: row.isFeatured,
    nonMedicalServiceFee: centsToAmount(row.nonMedicalServiceFeeCents),
    heroImageUrl: row.heroImageUrl,
    customSlug: row.customSlug,
    accentColor: row.accentColor,
    ...countProducts(row.products.map(pricingInput)),
    programGlobalProducts: row.products.map((product) => ({
      id: product.id,
      displayOrder: product.displayOrder,
      isPatientVisible: product.isPatientVisible,
      globalProduct: toGlobalProduct(product),
    })),
    state: row.state,
    templateId: row.templateId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toPricedProduct(row: ProductRow) {
  const price = priceProduct(pricingInput(row));
  return {
    globalProductId: row.globalProductId,
    name: row.name,
    displayOrder: row.displayOrder,
    linkSource: row.linkSource,
    isPatientVisible: row.isPatientVisible,
    displayPrice: centsToAmountOrNull(price.displayPriceCents),
    effectiveProgramFee: centsToAmountOrNull(price.effectiveFeeCents),
    feeSource: price.feeSource,
    clinicProgramFee: centsToAmountOrNull(row.clinicFeeOverrideCents),
    programBaseFee: centsToAmountOrNull(row.programBaseFeeCents),
    placeholderPrice: centsToAmountOrNull(row.placeholderFeeCents),
    pharmacyBasePrice: centsToAmount(row.pharmacyBasePriceCents),
    facilitationFee: centsToAmount(price.facilitationFeeCents),
    packDurationMonths: row.packDurationMonths,
    vialsPerPack: row.vialsPerPack,
    supplyDays: row.supplyDays,
    allowPrepay: row.allowPrepay,
    isSellable: price.isSellable,
    isCostBacked: price.isCostBacked,
    hasResolvedPrice: price.hasResolvedPrice,
  };
}
