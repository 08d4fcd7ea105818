import { and, desc, eq } from 'drizzle-orm';
import { formGlobalProducts, globalProducts, questionnaires } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { conflict, notFound } from '../../../platform/values/errors';
import type { FormGlobalProduct } from './schemas';

const UNIQUE_FORM_INDEX = 'form_global_products_questionnaire_id_key';

const linkColumns = {
  id: formGlobalProducts.id,
  formId: formGlobalProducts.questionnaireId,
  formName: questionnaires.name,
  globalProductId: formGlobalProducts.globalProductId,
  globalProductName: globalProducts.name,
  createdAt: formGlobalProducts.createdAt,
};

interface LinkRow {
  id: string;
  formId: string;
  formName: string;
  globalProductId: string;
  globalProductName: string;
  createdAt: Date;
}

const toLink = (row: LinkRow): FormGlobalProduct => ({
  id: row.id,
  formId: row.formId,
  formName: row.formName,
  globalProductId: row.globalProductId,
  globalProductName: row.globalProductName,
  createdAt: row.createdAt.toISOString(),
});

/** The clinic's form -> global product links with both names, newest first, in one query. */
export async function listFormGlobalProducts({ db, clinicId }: HandlerContext, query: PageQuery) {
  const rows = await db
    .select({ ...linkColumns, total: totalCount() })
    .from(formGlobalProducts)
    .innerJoin(
      questionnaires,
      and(eq(questionnaires.id, formGlobalProducts.questionnaireId), eq(questionnaires.clinicId, formGlobalProducts.clinicId)),
    )
    .innerJoin(globalProducts, eq(globalProducts.id, formGlobalProducts.globalProductId))
    .where(forClinic(db, clinicId).where(formGlobalProducts))
    .orderBy(desc(formGlobalProducts.createdAt), desc(formGlobalProducts.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => forClinic(db, clinicId).count(formGlobalProducts));
  return { data: page.rows.map(toLink), pagination: page.pagination };
}

const alreadyLinked = () =>
  conflict('CONFLICT', 'The form is already linked to a global product; unlink it first (DELETE /api/v1/forms/global-products)');

/**
 * Links one of the clinic's questionnaires to a global product. Both must exist (404 Form / Global
 * product otherwise, the form checked first); a form is linked to one product at most (409).
 */
export async function linkFormGlobalProduct(ctx: HandlerContext, body: { formId: string; globalProductId: string }) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const [form] = await tx
      .select({ id: questionnaires.id, name: questionnaires.name, linked: formGlobalProducts.id })
      .from(questionnaires)
      .leftJoin(
        formGlobalProducts,
        and(eq(formGlobalProducts.questionnaireId, questionnaires.id), eq(formGlobalProducts.clinicId, questionnaires.clinicId)),
      )
      .where(forClinic(tx, clinicId).where(questionnaires, eq(questionnaires.id, body.formId)))
      .limit(1);
    if (!form) throw notFound('Form');
    const [product] = await tx
      .select({ id: globalProducts.id, name: globalProducts.name })
      .from(globalProducts)
      .where(eq(globalProducts.id, body.globalProductId))
      .limit(1);
    if (!product) throw notFound('Global product');
    if (form.linked) throw alreadyLinked();
    try {
      const row = await forClinic(tx, clinicId).insert(formGlobalProducts, {
        questionnaireId: body.formId,
        globalProductId: body.globalProductId,
        createdAt: now,
      });
      return toLink({
        id: row.id,
        formId: row.questionnaireId,
        formName: form.name,
        globalProductId: row.globalProductId,
        globalProductName: product.name,
        createdAt: row.createdAt,
      });
    } catch (error) {
      if (isUniqueViolation(error, UNIQUE_FORM_INDEX)) throw alreadyLinked();
      throw error;
    }
  });
}

/** Removes the link of one of the clinic's forms; 404 when the form is not linked (or not the clinic's). */
export async function unlinkFormGlobalProduct({ db, clinicId }: HandlerContext, formId: string) {
  const [removed] = await db
    .delete(formGlobalProducts)
    .where(forClinic(db, clinicId).where(formGlobalProducts, eq(formGlobalProducts.questionnaireId, formId)))
    .returning({ formId: formGlobalProducts.questionnaireId, globalProductId: formGlobalProducts.globalProductId });
  if (!removed) throw notFound('Form link');
  return { formId: removed.formId, globalProductId: removed.globalProductId, unlinked: true as const };
}
