// The error examples of the OpenAPI document say what the code says: every example message of a code
// in the catalogue (src/platform/values/error-messages.ts) is one of that code's catalogue messages, with
// example values filled in. A message retyped in the examples would fail here.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { openApiDocument } from '../../src/platform/openapi/document';
import { ERROR_MESSAGES } from '../../src/platform/values/error-messages';

type Media = { example?: { code?: string; message?: string } };
const app = createApp(() => Promise.reject(new Error('the document needs no services')));
const document = openApiDocument(app) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Media> }> }>>;
};

/** A catalogue entry as patterns: a string as itself, a function's ${...} holes as "anything". */
function patternsOf(entry: unknown): RegExp[] {
  if (typeof entry === 'string') return [new RegExp(`^${entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)];
  if (typeof entry === 'function') {
    const holes = Array.from({ length: entry.length }, (_, i) => `@@${i}@@`);
    const text = (entry as (...args: unknown[]) => string)(...holes);
    const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/@@\d+@@|NaN/g, '.+');
    return [new RegExp(`^${escaped}$`)];
  }
  return Object.values(entry as Record<string, unknown>).flatMap(patternsOf);
}

describe('error examples come from the message catalogue', () => {
  it('shows, for every catalogued code, a message the code really sends', () => {
    const examples = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) =>
        Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {}).map((media) => media.example)),
      ),
    );
    let checked = 0;
    const drifted = new Set<string>();
    for (const example of examples) {
      const code = example?.code;
      if (!code || !(code in ERROR_MESSAGES) || typeof example.message !== 'string') continue;
      const patterns = patternsOf(ERROR_MESSAGES[code as keyof typeof ERROR_MESSAGES]);
      if (!patterns.some((p) => p.test(example.message!))) drifted.add(`${code}: ${example.message}`);
      checked++;
    }
    expect([...drifted]).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});
