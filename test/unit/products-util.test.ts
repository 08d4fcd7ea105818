import { describe, expect, it } from 'vitest';
import { MAX_SLUG_BASE_LENGTH, nextSlug, slugify } from '../../src/modules/catalog/products/slugs';

describe('slugify', () => {
  it('lowercases and joins ASCII letters and digits with single hyphens', () => {
    expect(slugify('Vitamin B12 Injection')).toBe('vitamin-b12-injection');
    expect(slugify('  NAD+  / 500mg  ')).toBe('nad-500mg');
    expect(slugify('a__b--c')).toBe('a-b-c');
  });
  it('drops accents', () => {
    expect(slugify('Crème Brûlée')).toBe('creme-brulee');
  });
  it('falls back to "product" when nothing is left', () => {
    expect(slugify('!!!')).toBe('product');
    expect(slugify('日本語')).toBe('product');
  });
  it('caps the length without a trailing hyphen', () => {
    const slug = slugify(`${'a'.repeat(MAX_SLUG_BASE_LENGTH - 1)} bcd`);
    expect(slug.length).toBeLessThanOrEqual(MAX_SLUG_BASE_LENGTH);
    expect(slug.endsWith('-')).toBe(false);
  });
});

describe('nextSlug', () => {
  it('keeps a free base', () => expect(nextSlug('b12', new Set(['b12-2']))).toBe('b12'));
  it('numbers from 2 and fills the first gap', () => {
    expect(nextSlug('b12', new Set(['b12']))).toBe('b12-2');
    expect(nextSlug('b12', new Set(['b12', 'b12-2', 'b12-4']))).toBe('b12-3');
  });
});
