import { describe, expect, it } from 'vitest';
import { detectImageType } from '../../src/modules/catalog/uploads/image-type';
import { IMAGES, NOT_IMAGES } from '../helpers/images';

describe('detectImageType (from the bytes)', () => {
  it('recognises a real PNG', () => {
    expect(detectImageType(IMAGES.png)).toEqual({ kind: 'png', contentType: 'image/png', extension: 'png' });
  });

  it('recognises a real JPEG', () => {
    expect(detectImageType(IMAGES.jpeg)).toEqual({ kind: 'jpeg', contentType: 'image/jpeg', extension: 'jpg' });
  });

  it('recognises a real GIF (89a) and the 87a signature', () => {
    expect(detectImageType(IMAGES.gif)).toEqual({ kind: 'gif', contentType: 'image/gif', extension: 'gif' });
    const gif87 = IMAGES.gif.slice();
    gif87.set(new TextEncoder().encode('GIF87a'));
    expect(detectImageType(gif87)?.kind).toBe('gif');
  });

  it('recognises real WebP files, lossless and lossy', () => {
    expect(detectImageType(IMAGES.webp)).toEqual({ kind: 'webp', contentType: 'image/webp', extension: 'webp' });
    expect(detectImageType(IMAGES.webpLossy)?.kind).toBe('webp');
  });

  it.each(Object.entries(NOT_IMAGES))('refuses %s', (_name, bytes) => {
    expect(detectImageType(bytes)).toBeNull();
  });

  it('ignores everything a client declares: an SVG is refused whatever it claims to be', () => {
    // The function sees bytes only; names and content types never reach it. An SVG beginning with
    // whitespace or a BOM is still text.
    expect(detectImageType(new TextEncoder().encode('\ufeff  <svg/>'))).toBeNull();
  });

  it('accepts a file whose signature matches even if the rest is damaged (documented: no decoding)', () => {
    const damaged = new Uint8Array([...IMAGES.png.slice(0, 16), 0, 1, 2, 3]);
    expect(detectImageType(damaged)?.kind).toBe('png');
  });

  it('needs the signature at the very start', () => {
    expect(detectImageType(new Uint8Array([0, ...IMAGES.png]))).toBeNull();
  });
});
