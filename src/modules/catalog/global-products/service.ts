import { sql } from 'drizzle-orm';
import type { ProgramState } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { rowsOf } from '../../../platform/db/sql';
import type { DiscontinuedInUse } from './schemas';

/**
 * GET /global-products/discontinued-in-use: discontinued global products linked (program_products,
 * active or not) to a program of the clinic that is not retired, each with those programs.
 */
export async function listDiscontinuedInUse({ db, clinicId }: HandlerContext): Promise<DiscontinuedInUse[]> {
  const rows = await rowsOf<{ id: string; name: string; slug: string; programs: { id: string; name: string; state: ProgramState }[] }>(
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
