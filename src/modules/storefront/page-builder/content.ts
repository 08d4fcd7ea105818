// The page builder's JSON documents (draftContent): shape limits checked before anything is stored.

import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { ApiError } from '../../../platform/values/errors';
import { findRefusedCharacter } from '../../../platform/values/strings';
import { findUnsafeMarkup } from './unsafe-markup';

/** Largest draftContent, measured as its JSON text in UTF-8 (256 KiB). Above it: 413. */
export const MAX_CONTENT_BYTES = 256 * 1024;
/** Deepest nesting of objects and arrays in draftContent (the top object is depth 1). */
export const MAX_CONTENT_DEPTH = 32;

/** A problem of a JSON document: where (keys and indexes from the top object) and what. */
export interface ContentProblem {
  path: string[];
  message: string;
}

/**
 * The first problem of a JSON value, or null: nesting deeper than MAX_CONTENT_DEPTH; a string or key
 * with a control character other than tab, LF and CR, or a lone surrogate (PostgreSQL's jsonb refuses
 * U+0000 and text that is not valid Unicode; the others are refused for the same reason as in every
 * other text field); a string or key with markup or a URL that would run script (findUnsafeMarkup).
 * A key in the path is JSON-quoted when the problem is in the key itself, so nothing raw is echoed.
 */
export function contentProblem(value: unknown): ContentProblem | null {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value, path: [], depth: 1 }];
  while (stack.length) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const message = textProblem(current, true);
      if (message) return { path, message };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_CONTENT_DEPTH) return { path, message: `nested deeper than ${MAX_CONTENT_DEPTH} levels` };
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, i) => [String(i), item])
      : Object.entries(current as Record<string, unknown>);
    for (const [key, item] of entries) {
      if (!Array.isArray(current)) {
        const message = textProblem(key, false);
        if (message) return { path: [...path, JSON.stringify(key)], message: `the key ${message}` };
      }
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

function textProblem(text: string, allowLineBreaks: boolean): string | null {
  const refused = findRefusedCharacter(text, allowLineBreaks);
  return refused ? describe(refused) : findUnsafeMarkup(text);
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
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', ERROR_MESSAGES.PAYLOAD_TOO_LARGE.content(field, size, MAX_CONTENT_BYTES));
  }
}
