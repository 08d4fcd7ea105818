import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { databaseErrorState, isUniqueViolation } from '../../../platform/db/errors';
import { rowsOf } from '../../../platform/db/sql';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError, badRequest, conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type ProgramRow, programColumns, readProgram, toProgram } from './queries';
import type { CreateProgramBody, listProgramsQuery, Program, UpdateProgramBody } from './schemas';

// Programs: list, read, create, update (with productPricing), delete (wind-down rules), duplicate.

const PROGRAM = 'Program';

const slugTaken = () => conflict('CONFLICT', 'body.customSlug: another program of this clinic already uses this slug');

async function withSlugCheck<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error, 'programs_clinic_id_custom_slug_key')) throw slugTaken();
    throw error;
  }
}

/** A program of the clinic with its products, or the same 404 for an unknown, malformed or other clinic's id. */
export async function requireProgram(db: Queryable, clinicId: string, id: string): Promise<ProgramRow> {
  if (!isUuid(id)) throw notFound(PROGRAM);
  const row = await readProgram(db, clinicId, id);
  if (!row) throw notFound(PROGRAM);
  return row;
}

/** Locks the program row for a write; 404 like a read. */
export async function lockProgram(tx: Queryable, clinicId: string, id: string) {
  if (!isUuid(id)) throw notFound(PROGRAM);
  const [row] = await rowsOf<{ id: string; state: Program['state']; templateId: string | null }>(
    tx,
    sql`select id, state, template_id as "templateId" from programs where id = ${id} and clinic_id = ${clinicId} for update`,
  );
  if (!row) throw notFound(PROGRAM);
  return row;
}

export async function getProgram({ db, clinicId }: HandlerContext, id: string): Promise<Program> {
  return toProgram(await requireProgram(db, clinicId, id));
}

/** Newest first; retired programs only when asked for with state=retired. One statement. */
export async function listPrograms({ db, clinicId }: HandlerContext, query: z.infer<typeof listProgramsQuery>) {
  const stateFilter = query.state ? sql`p.state = ${query.state}` : sql`p.state <> 'retired'`;
  const rows = await rowsOf<ProgramRow & { total: number }>(
    db,
    sql`
    select ${programColumns}, ${totalCount()} as total
    from programs p
    where p.clinic_id = ${clinicId} and ${stateFilter}
    order by p.created_at desc, p.id desc
    limit ${query.limit} offset ${pageOffset(query)}`,
  );
  const page = await paginate(query, rows, async () => {
    const [count] = await rowsOf<{ n: number }>(
      db,
      sql`select count(*)::int as n from programs p where p.clinic_id = ${clinicId} and ${stateFilter}`,
    );
    return count?.n ?? 0;
  });
  return { data: page.rows.map(toProgram), pagination: page.pagination };
}

export async function createProgram(ctx: HandlerContext, body: CreateProgramBody): Promise<Program> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return withSlugCheck(() =>
    db.transaction(async (tx) => {
      let template: { id: string; version: number; feeCents: number } | undefined;
      if (body.templateId) {
        [template] = await rowsOf<{ id: string; version: number; feeCents: number }>(
          tx,
          sql`
          select id, version, non_medical_service_fee_cents as "feeCents" from program_templates
          where id = ${body.templateId} and is_active`,
        );
        if (!template) throw badRequest('body.templateId: unknown program template');
      }
      const [created] = await rowsOf<{ id: string }>(
        tx,
        sql`
        insert into programs (clinic_id, name, description, state, is_active, is_featured, non_medical_service_fee_cents,
          hero_image_url, custom_slug, accent_color, template_id, template_version, created_at, updated_at)
        values (${clinicId}, ${body.name}, ${body.description ?? null}, ${body.state ?? 'draft'}, ${body.isActive ?? false},
          ${body.isFeatured ?? false}, ${body.nonMedicalServiceFee ?? template?.feeCents ?? 0}, ${body.heroImageUrl ?? null},
          ${body.customSlug ?? null}, ${body.accentColor ?? null}, ${template?.id ?? null}, ${template?.version ?? null}, ${now}, ${now})
        returning id`,
      );
      if (template) {
        await tx.execute(sql`
          insert into program_products (clinic_id, program_id, global_product_id, display_order, is_patient_visible, link_source, program_base_fee_cents)
          select ${clinicId}, ${created!.id}, tpp.global_product_id, tpp.display_order, tpp.is_patient_visible, 'template', tpp.program_base_fee_cents
          from program_template_products tpp where tpp.template_id = ${template.id}`);
      }
      return toProgram((await readProgram(tx, clinicId, created!.id))!);
    }),
  );
}

/** The program's columns a PUT may set, as SQL assignments (only the fields sent). */
function assignments(body: UpdateProgramBody, now: Date) {
  const set = [sql`updated_at = ${now}`];
  if (body.name !== undefined) set.push(sql`name = ${body.name}`);
  if (body.description !== undefined) set.push(sql`description = ${body.description}`);
  if (body.isActive !== undefined) set.push(sql`is_active = ${body.isActive}`);
  if (body.isFeatured !== undefined) set.push(sql`is_featured = ${body.isFeatured}`);
  if (body.nonMedicalServiceFee !== undefined) set.push(sql`non_medical_service_fee_cents = ${body.nonMedicalServiceFee}`);
  if (body.heroImageUrl !== undefined) set.push(sql`hero_image_url = ${body.heroImageUrl}`);
  if (body.customSlug !== undefined) set.push(sql`custom_slug = ${body.customSlug}`);
  if (body.accentColor !== undefined) set.push(sql`accent_color = ${body.accentColor}`);
  if (body.state !== undefined) set.push(sql`state = ${body.state}`);
  return sql.join(set, sql`, `);
}

/**
 * Updates the fields sent and, with productPricing, the clinic fee overrides (programFee null clears
 * one). Every key of productPricing must be a global product of this program, else nothing changes
 * and the answer is a 400 naming the unknown ids.
 */
export async function updateProgram(ctx: HandlerContext, id: string, body: UpdateProgramBody): Promise<Program> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return withSlugCheck(() =>
    db.transaction(async (tx) => {
      const current = await lockProgram(tx, clinicId, id);
      if (current.state === 'retired' && (body.state !== undefined || body.isActive === true)) {
        throw conflict('CONFLICT', 'A retired program cannot be offered again; duplicate it to start a new one');
      }
      const pricing = Object.entries(body.productPricing ?? {});
      if (pricing.length) {
        // Keys are uuids, so "ABC..." and "abc..." name one product: two fees for it would let the
        // update pick either one. Refused like a product listed twice in PUT /products.
        const lowered = pricing.map(([key]) => key.toLowerCase());
        const repeated = [...new Set(lowered.filter((key, index) => lowered.indexOf(key) !== index))];
        if (repeated.length) throw badRequest(`body.productPricing: product listed more than once: ${repeated.join(', ')}`);
        const candidates = pricing.map(([key]) => key).filter(isUuid);
        const known = candidates.length
          ? await rowsOf<{ id: string }>(
              tx,
              sql`
              select global_product_id as id from program_products
              where program_id = ${id} and clinic_id = ${clinicId}
                and global_product_id in (${sql.join(
                  candidates.map((c) => sql`${c}::uuid`),
                  sql`, `,
                )})`,
            )
          : [];
        const knownIds = new Set(known.map((row) => row.id.toLowerCase()));
        const unknown = pricing.map(([key]) => key).filter((key) => !knownIds.has(key.toLowerCase()));
        if (unknown.length) {
          throw badRequest(`body.productPricing: not products of this program: ${unknown.join(', ')}`);
        }
      }
      await tx.execute(sql`update programs set ${assignments(body, now)} where id = ${id} and clinic_id = ${clinicId}`);
      if (pricing.length) {
        const values = pricing.map(([key, entry]) => sql`(${key}::uuid, ${entry.programFee}::integer)`);
        await tx.execute(sql`
          update program_products pp set clinic_fee_override_cents = v.fee, updated_at = ${now}
          from (values ${sql.join(values, sql`, `)}) as v(gp, fee)
          where pp.program_id = ${id} and pp.clinic_id = ${clinicId} and pp.global_product_id = v.gp`);
      }
      return toProgram((await readProgram(tx, clinicId, id))!);
    }),
  );
}

export type DeleteOutcome = { outcome: 'deleted' | 'retired'; program: Program };

/**
 * The wind-down rules (docs/programs.md): patients with an active enrollment -> 409
 * WINDDOWN_CONSENT_REQUIRED with their count; any other enrollment (paused: in flight; cancelled or
 * completed: history the database keeps), any order, or any other row that still refers to the program -> retired;
 * nothing at all -> removed. The program row is locked for the decision.
 */
export async function deleteProgram(ctx: HandlerContext, id: string): Promise<DeleteOutcome> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    await lockProgram(tx, clinicId, id);
    // Orders count as in-flight work (or history) too: their program_id would otherwise be cleared.
    const [counts] = await rowsOf<{ patients: number; enrollments: number; orders: number }>(
      tx,
      sql`
      select count(distinct patient_id) filter (where status = 'active')::int as patients, count(*)::int as enrollments,
        (select count(*)::int from orders o where o.program_id = ${id} and o.clinic_id = ${clinicId}) as orders
      from enrollments where program_id = ${id} and clinic_id = ${clinicId}`,
    );
    if (counts!.patients > 0) {
      throw new ApiError(409, 'WINDDOWN_CONSENT_REQUIRED', ERROR_MESSAGES.WINDDOWN_CONSENT_REQUIRED(counts!.patients), {
        data: { patients: counts!.patients },
      });
    }
    const before = (await readProgram(tx, clinicId, id))!;
    if (counts!.enrollments === 0 && counts!.orders === 0) {
      try {
        // A savepoint: if another table still refers to the program (23503), retire it instead.
        await tx.transaction(async (savepoint) => {
          await savepoint.execute(sql`delete from programs where id = ${id} and clinic_id = ${clinicId}`);
        });
        return { outcome: 'deleted', program: toProgram(before) };
      } catch (error) {
        if (databaseErrorState(error).code !== '23503') throw error;
      }
    }
    await tx.execute(sql`
      update programs set state = 'retired', is_active = false, retired_at = coalesce(retired_at, ${now}), updated_at = ${now}
      where id = ${id} and clinic_id = ${clinicId}`);
    // The row read above with what the update changed (the products are untouched): no second read.
    const retired: ProgramRow = { ...before, state: 'retired', isActive: false, updatedAt: now.toISOString() };
    return { outcome: 'retired', program: toProgram(retired) };
  });
}

/** A deep copy (program, products with their fees, titration attachments) as a new draft, in one transaction. */
export async function duplicateProgram(ctx: HandlerContext, id: string): Promise<Program> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    await lockProgram(tx, clinicId, id);
    const [copy] = await rowsOf<{ id: string }>(
      tx,
      sql`
      insert into programs (clinic_id, name, description, state, is_active, is_featured, non_medical_service_fee_cents,
        hero_image_url, custom_slug, accent_color, template_id, template_version, created_at, updated_at)
      select clinic_id, name || ' (copy)', description, 'draft', false, is_featured, non_medical_service_fee_cents,
        hero_image_url, null, accent_color, template_id, template_version, ${now}, ${now}
      from programs where id = ${id} and clinic_id = ${clinicId}
      returning id`,
    );
    await tx.execute(sql`
      insert into program_products (clinic_id, program_id, global_product_id, display_order, is_patient_visible, is_active,
        link_source, program_base_fee_cents, clinic_fee_override_cents, created_at, updated_at)
      select clinic_id, ${copy!.id}, global_product_id, display_order, is_patient_visible, is_active,
        link_source, program_base_fee_cents, clinic_fee_override_cents, ${now}, ${now}
      from program_products where program_id = ${id} and clinic_id = ${clinicId}`);
    await tx.execute(sql`
      insert into program_titration_protocols (clinic_id, program_id, titration_protocol_id, flat_fee_cents, allowed_billing_months, position, created_at)
      select clinic_id, ${copy!.id}, titration_protocol_id, flat_fee_cents, allowed_billing_months, position, ${now}
      from program_titration_protocols where program_id = ${id} and clinic_id = ${clinicId}`);
    return toProgram((await readProgram(tx, clinicId, copy!.id))!);
  });
}
