// Pure helpers of the products area (unit-tested in test/unit/products-util.test.ts).

export const MAX_SLUG_BASE_LENGTH = 80;

/** A URL slug from a product name: ASCII letters and digits joined by single hyphens; "product" if nothing is left. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_BASE_LENGTH)
    .replace(/-+$/g, '');
  return base || 'product';
}

/** The first of base, base-2, base-3... not in `taken`. */
export function nextSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Rows of a raw `db.execute` result (node-postgres and the Neon driver both answer { rows }). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

