import { asc } from 'drizzle-orm';
import { type TitrationLevel, titrationProtocols } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { TitrationProtocol } from './schemas';

/** All shared protocols, by name. */
export async function listTitrationProtocols({ db }: HandlerContext): Promise<TitrationProtocol[]> {
  const rows = await db
    .select({
      id: titrationProtocols.id,
      name: titrationProtocols.name,
      description: titrationProtocols.description,
      levels: titrationProtocols.levels,
      maxLevel: titrationProtocols.maxLevel,
      createdAt: titrationProtocols.createdAt,
    })
    .from(titrationProtocols)
    .orderBy(asc(titrationProtocols.name), asc(titrationProtocols.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    levels: (row.levels ?? []).map((l: TitrationLevel) => ({ level: l.level, dose: l.dose, weeks: l.weeks })),
    maxLevel: row.maxLevel,
    createdAt: row.createdAt.toISOString(),
  }));
}
