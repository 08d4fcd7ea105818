import { z } from '@hono/zod-openapi';
import { htmlProblem, type MarkupOptions, plainTextProblem } from './markup';

/**
 * String fields of bodies and queries. Every string the API accepts is built with one of these, so
 * nothing PostgreSQL refuses (a NUL byte gives SQLSTATE 22021, a lone UTF-16 surrogate cannot be
 * encoded as UTF-8) and no invisible control character reaches the database or a log:
 *
 * - `safeString()`: single-line text (names, emails, codes, search terms, passwords). Refuses every
 *   control character (Unicode category Cc: U+0000–U+001F including tab, LF and CR, U+007F DEL,
 *   U+0080–U+009F) and lone surrogates (U+D800–U+DFFF not part of a pair).
 * - `text()`: multi-line text (descriptions, notes, messages). The same, but tab, LF and CR are allowed.
 *
 * Both are plain zod strings (from @hono/zod-openapi), so .trim(), .min(), .max(), .email(), .regex()
 * and .openapi() chain as usual: `safeString().trim().min(1).max(100).openapi({ example: 'x' })`. The
 * check runs on the value as sent (before .trim()). A refused value is a 400 VALIDATION_ERROR naming
 * the field and the character: `body.name: must not contain control characters (U+0000 at index 1)`.
 */
const SINGLE_LINE_REFUSED = /[\p{Cc}\p{Cs}]/u;
const MULTI_LINE_REFUSED = /(?![\t\n\r])\p{Cc}|\p{Cs}/u;

/** The first refused character of `value` and its index (UTF-16 code units), or null. */
export function findRefusedCharacter(value: string, multiLine = false): { codePoint: number; index: number } | null {
  const match = (multiLine ? MULTI_LINE_REFUSED : SINGLE_LINE_REFUSED).exec(value);
  return match ? { codePoint: match[0].codePointAt(0)!, index: match.index } : null;
}

function describe(found: { codePoint: number; index: number }): string {
  const hex = `U+${found.codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return found.codePoint >= 0xd800 && found.codePoint <= 0xdfff
    ? `must be valid Unicode text (lone surrogate ${hex} at index ${found.index})`
    : `must not contain control characters (${hex} at index ${found.index})`;
}

function refusing(multiLine: boolean) {
  return z.string().superRefine((value, ctx) => {
    const found = findRefusedCharacter(value, multiLine);
    if (found) ctx.addIssue({ code: 'custom', message: describe(found) });
  });
}

/** A single-line string: no control characters at all (not even tab, LF or CR), no lone surrogates. */
export const safeString = () => refusing(false);

/** A multi-line string: tab, LF and CR allowed; other control characters and lone surrogates refused. */
export const text = () => refusing(true);

/** Longest slug base before a numeric suffix is added. */
export const MAX_SLUG_BASE_LENGTH = 80;

/** A URL slug from a name: ASCII letters and digits joined by single hyphens; `fallback` if nothing is left. */
export function slugify(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_BASE_LENGTH)
    .replace(/-+$/g, '');
  return base || fallback;
}

/**
 * Plain text that a storefront, an email or the brand's tools show (names, descriptions, SEO texts,
 * subjects): `safeString()` / `text()` that also refuse HTML markup and template expressions
 * (plainTextProblem, docs/api-conventions.md "Markup in stored fields"). `mergeFields`: {{name}}
 * tokens are allowed (message subjects and SMS bodies).
 */
export const plainLine = (options: MarkupOptions = {}) => safeString().superRefine(refuseMarkup(plainTextProblem, options, false));
export const plainText = (options: MarkupOptions = {}) => text().superRefine(refuseMarkup(plainTextProblem, options, true));

/** Rich HTML (email bodies): `text()` holding only allowed markup (htmlProblem). */
export const htmlText = (options: MarkupOptions = {}) => text().superRefine(refuseMarkup(htmlProblem, options, true));

function refuseMarkup(problemOf: (value: string, options: MarkupOptions) => string | null, options: MarkupOptions, multiLine: boolean) {
  return (value: string, ctx: z.RefinementCtx) => {
    // A value with a refused character already has its issue; one message per field is enough.
    if (findRefusedCharacter(value, multiLine)) return;
    const problem = problemOf(value, options);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
}
