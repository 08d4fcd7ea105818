import { asc } from 'drizzle-orm';
import { formStructures } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { FormStructure } from './schemas';

/** All shared form structures, by category then name. */
export async function listFormStructures({ db }: HandlerContext): Promise<FormStructure[]> {
  const rows = await db
    .select({
      id: formStructures.id,
      name: formStructures.name,
      slug: formStructures.slug,
      category: formStructures.category,
      structure: formStructures.structure,
      createdAt: formStructures.createdAt,
    })
    .from(formStructures)
    .orderBy(asc(formStructures.category), asc(formStructures.name), asc(formStructures.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    slug: row.slug,
    category: row.category,
    structure: row.structure ?? {},
    createdAt: row.createdAt.toISOString(),
  }));
}
