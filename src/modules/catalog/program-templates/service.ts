// The shared program templates: platform-wide rows (no clinic_id), read by every clinic. One query per call.
import { and, asc, eq, sql } from 'drizzle-orm';
import { programTemplates } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { centsToAmount, centsToAmountOrNull } from '../../../platform/values/money';
import { type GlobalProductPart, type ProductRow, toGlobalProduct } from '../programs/queries';
import type { ProgramTemplate, ProgramTemplateDetail, TemplateGlobalProduct } from './schemas';

const templateColumns = {
  id: programTemplates.id,
  name: programTemplates.name,
  slug: programTemplates.slug,
  description: programTemplates.description,
  nonMedicalServiceFeeCents: programTemplates.nonMedicalServiceFeeCents,
  version: programTemplates.version,
  createdAt: programTemplates.createdAt,
  updatedAt: programTemplates.updatedAt,
  productCount: sql<number>`(select count(*)::int from program_template_products tp where tp.template_id = program_templates.id)`,
};

type TemplateRow = {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  nonMedicalServiceFeeCents: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  productCount: number;
};

function toTemplate(row: TemplateRow): ProgramTemplate {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    nonMedicalServiceFee: centsToAmount(row.nonMedicalServiceFeeCents),
    version: row.version,
    productCount: Number(row.productCount),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Active templates, by name. Inactive templates are hidden everywhere (list, get, global-products). */
export async function listProgramTemplates({ db }: HandlerContext): Promise<ProgramTemplate[]> {
  const rows = await db
    .select(templateColumns)
    .from(programTemplates)
    .where(eq(programTemplates.isActive, true))
    .orderBy(asc(programTemplates.name), asc(programTemplates.id));
  return rows.map(toTemplate);
}

/** A template product: the global product's fields and the template's display order, visibility and fee. */
type TemplateProductJson = GlobalProductPart & Pick<ProductRow, 'displayOrder' | 'isPatientVisible' | 'programBaseFeeCents'>;

/** The template's products as one json array, in display order (a correlated subquery: one round trip). */
const templateProductsJson = sql<TemplateProductJson[]>`coalesce((
  select json_agg(json_build_object(
    'globalProductId', g.id, 'name', g.name, 'slug', g.slug, 'categories', g.categories, 'description', g.description,
    'imageUrl', g.image_url, 'pharmacyBasePriceCents', g.pharmacy_base_price_cents, 'packDurationMonths', g.pack_duration_months,
    'vialsPerPack', g.vials_per_pack, 'supplyDays', g.supply_days, 'requiresCooler', g.requires_cooler,
    'allowPrepay', g.allow_prepay, 'isDiscontinued', g.is_discontinued, 'displayOrder', tp.display_order,
    'isPatientVisible', tp.is_patient_visible, 'programBaseFeeCents', tp.program_base_fee_cents
  ) order by tp.display_order, g.name, g.id)
  from program_template_products tp join global_products g on g.id = tp.global_product_id
  where tp.template_id = program_templates.id
), '[]'::json)`;

async function findTemplateWithProducts(db: Queryable, id: string) {
  if (!isUuid(id)) throw notFound('Program template');
  const [row] = await db
    .select({ ...templateColumns, products: templateProductsJson })
    .from(programTemplates)
    .where(and(eq(programTemplates.id, id), eq(programTemplates.isActive, true)))
    .limit(1);
  if (!row) throw notFound('Program template');
  return row;
}

export async function getProgramTemplate({ db }: HandlerContext, id: string): Promise<ProgramTemplateDetail> {
  const row = await findTemplateWithProducts(db, id);
  return {
    ...toTemplate(row),
    products: row.products.map((p) => ({
      globalProductId: p.globalProductId,
      name: p.name,
      displayOrder: p.displayOrder,
      isPatientVisible: p.isPatientVisible,
      programBaseFee: centsToAmountOrNull(p.programBaseFeeCents),
    })),
  };
}

export async function listTemplateGlobalProducts({ db }: HandlerContext, id: string): Promise<TemplateGlobalProduct[]> {
  const row = await findTemplateWithProducts(db, id);
  return row.products.map((p) => ({
    ...toGlobalProduct(p),
    displayOrder: p.displayOrder,
    isPatientVisible: p.isPatientVisible,
    programBaseFee: centsToAmountOrNull(p.programBaseFeeCents),
  }));
}
