import { sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../platform/context';
import type { Queryable } from '../../../platform/db/client';
import { rowsOf } from '../../../platform/db/sql';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { SyncResult } from './schemas';
import { lockProgram } from './service';

// Template sync: a program derived from a template re-applies the template's products and base
// fees. Clinic overrides, activation, visibility, display order and products the clinic added itself
// (linkSource program) stay; products that came from the template and left it are removed.

const isBehind = (templateVersion: number | null, latest: number | null) =>
  latest !== null && (templateVersion === null || templateVersion < latest);

export async function syncStatus({ db, clinicId }: HandlerContext, id: string) {
  if (!isUuid(id)) throw notFound('Program');
  const [row] = await rowsOf<{ programId: string; templateId: string | null; templateVersion: number | null; latest: number | null }>(
    db,
    sql`
    select p.id as "programId", p.template_id as "templateId", p.template_version as "templateVersion", t.version as latest
    from programs p left join program_templates t on t.id = p.template_id
    where p.id = ${id} and p.clinic_id = ${clinicId}`,
  );
  if (!row) throw notFound('Program');
  return {
    programId: row.programId,
    templateId: row.templateId,
    templateVersion: row.templateVersion,
    latestTemplateVersion: row.latest,
    isBehind: isBehind(row.templateVersion, row.latest),
  };
}

/** Re-applies the template to one program whose row the caller has locked. */
async function applyTemplate(tx: Queryable, clinicId: string, programId: string, templateId: string, now: Date): Promise<SyncResult> {
  const [template] = await rowsOf<{ version: number }>(tx, sql`select version from program_templates where id = ${templateId}`);
  const removed = await rowsOf<{ id: string }>(
    tx,
    sql`
    delete from program_products pp
    where pp.program_id = ${programId} and pp.clinic_id = ${clinicId} and pp.link_source = 'template'
      and not exists (select 1 from program_template_products tpp where tpp.template_id = ${templateId} and tpp.global_product_id = pp.global_product_id)
    returning pp.id`,
  );
  const upserted = await rowsOf<{ inserted: boolean }>(
    tx,
    sql`
    insert into program_products (clinic_id, program_id, global_product_id, display_order, is_patient_visible, link_source, program_base_fee_cents, created_at, updated_at)
    select ${clinicId}, ${programId}, tpp.global_product_id, tpp.display_order, tpp.is_patient_visible, 'template', tpp.program_base_fee_cents, ${now}, ${now}
    from program_template_products tpp where tpp.template_id = ${templateId}
    on conflict (program_id, global_product_id) do update
      set program_base_fee_cents = excluded.program_base_fee_cents, link_source = 'template', updated_at = excluded.updated_at
    returning (xmax = 0) as inserted`,
  );
  await tx.execute(
    sql`update programs set template_version = ${template!.version}, updated_at = ${now} where id = ${programId} and clinic_id = ${clinicId}`,
  );
  const added = upserted.filter((row) => row.inserted).length;
  return {
    programId,
    templateId,
    templateVersion: template!.version,
    latestTemplateVersion: template!.version,
    isBehind: false,
    addedProducts: added,
    updatedProducts: upserted.length - added,
    removedProducts: removed.length,
  };
}

export async function syncProgram(ctx: HandlerContext, id: string): Promise<SyncResult> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const program = await lockProgram(tx, clinicId, id);
    if (!program.templateId) throw conflict('CONFLICT', 'This program is not derived from a program template');
    if (program.state === 'retired') throw conflict('CONFLICT', 'A retired program is not synced');
    return applyTemplate(tx, clinicId, program.id, program.templateId, now);
  });
}

/** Every template-derived program of the clinic that is not retired, in one transaction. */
export async function syncAllPrograms(ctx: HandlerContext) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const programs = await rowsOf<{ id: string; templateId: string }>(
      tx,
      sql`
      select id, template_id as "templateId" from programs
      where clinic_id = ${clinicId} and template_id is not null and state <> 'retired'
      order by created_at, id for update`,
    );
    const results: SyncResult[] = [];
    for (const program of programs) results.push(await applyTemplate(tx, clinicId, program.id, program.templateId, now));
    return { synced: results.length, programs: results };
  });
}
