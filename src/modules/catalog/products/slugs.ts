// Pure helpers of the products area (unit-tested in test/unit/products-util.test.ts).
import { slugify as platformSlugify } from '../../../platform/values/strings';

export { MAX_SLUG_BASE_LENGTH } from '../../../platform/values/strings';

/** A URL slug from a product name ("product" if nothing is left). */
export const slugify = (name: string): string => platformSlugify(name, 'product');

/** The first of base, base-2, base-3... not in `taken`. */
export function nextSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
