// The page builder's JSON documents (draftContent): shape limits checked before anything is stored.
import { ApiError } from '../../../platform/http/errors';
import { findRefusedCharacter } from '../../../platform/http/strings';

/** Largest draftContent, measured as its JSON text in UTF-8 (256 KiB). Above it: 413. */
export const MAX_CONTENT_BYTES = 256 * 1024;
/** Deepest nesting of objects and arrays in draftContent (the top object is depth 1). */
export const MAX_CONTENT_DEPTH = 32;

/**
 * The first problem of a JSON value, as "<path>: <what>" (path relative to the value, e.g.
 * "sections.0.title"), or null: nesting deeper than MAX_CONTENT_DEPTH; a string or key with a
 * control character other than tab, LF and CR, or a lone surrogate (PostgreSQL's jsonb refuses
 * U+0000 and text that is not valid Unicode; the others are refused for the same reason as in every
 * other text field).
 */
export function contentProblem(value: unknown): string | null {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value, path: [], depth: 1 }];
  const at = (path: string[]) => (path.length ? path.join('.') : '(the document)');
  while (stack.length) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const refused = findRefusedCharacter(current, true);
      if (refused) return `${at(path)}: ${describe(refused)}`;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_CONTENT_DEPTH) return `${at(path)}: nested deeper than ${MAX_CONTENT_DEPTH} levels`;
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, i) => [String(i), item])
      : Object.entries(current as Record<string, unknown>);
    for (const [key, item] of entries) {
      if (!Array.isArray(current)) {
        const refused = findRefusedCharacter(key, false);
        if (refused) return `${at([...path, JSON.stringify(key)])}: the key ${describe(refused)}`;
      }
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

function describe({ codePoint, index }: { codePoint: number; index: number }): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return codePoint >= 0xd800 && codePoint <= 0xdfff
    ? `must be valid Unicode text (lone surrogate ${hex} at index ${index})`
    : `must not contain control characters (${hex} at index ${index})`;
}

/** The size of a JSON document as stored and sent: its JSON text in UTF-8. */
export const contentBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;

/** 413 PAYLOAD_TOO_LARGE when draftContent is over MAX_CONTENT_BYTES. */
export function assertContentSize(value: unknown, field = 'body.draftContent'): void {
  const size = contentBytes(value);
  if (size > MAX_CONTENT_BYTES) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `${field} is ${size} bytes as JSON; at most ${MAX_CONTENT_BYTES} bytes (256 KiB) are allowed`,
    );
  }
}
