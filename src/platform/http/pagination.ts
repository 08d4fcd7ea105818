import { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 25;

/** Query parameters of every paged list. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ description: 'Page number, from 1.', example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Page size, at most ${MAX_PAGE_SIZE}.`, example: DEFAULT_PAGE_SIZE }),
});
export type PageQuery = z.infer<typeof pageQuery>;

export const paginationSchema = z
  .object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() })
  .openapi('Pagination');
export type Pagination = z.infer<typeof paginationSchema>;

export function pagedBody<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), message: z.string(), data: z.array(item), pagination: paginationSchema });
}

/** Select this column next to a list's columns: the row count of the whole filtered set, in the same query. */
export const totalCount = (): SQL<number> => sql<number>`cast(count(*) over() as integer)`;

export const pageOffset = ({ page, limit }: PageQuery) => (page - 1) * limit;

export function pagination({ page, limit }: PageQuery, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/**
 * Runs a page query that selected totalCount() as `total`. A page past the end returns no rows and so
 * no total; only then is the count asked for separately.
 */
export async function paginate<Row extends { total: number }>(
  query: PageQuery,
  rows: Row[],
  countAll: () => Promise<number>,
): Promise<{ rows: Omit<Row, 'total'>[]; pagination: Pagination }> {
  const total = rows[0]?.total ?? (query.page > 1 ? await countAll() : 0);
  return { rows: rows.map(({ total: _total, ...row }) => row), pagination: pagination(query, total) };
}
