/** The image types uploads accept, told apart by their first bytes (never by a declared type or a name). */
export const IMAGE_TYPES = {
  png: { contentType: 'image/png', extension: 'png' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  gif: { contentType: 'image/gif', extension: 'gif' },
} as const;

export type ImageKind = keyof typeof IMAGE_TYPES;
export interface ImageType {
  kind: ImageKind;
  contentType: (typeof IMAGE_TYPES)[ImageKind]['contentType'];
  extension: (typeof IMAGE_TYPES)[ImageKind]['extension'];
}

const ascii = (text: string) => Array.from(text, (ch) => ch.charCodeAt(0));
const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);

/** 89 50 4E 47 0D 0A 1A 0A, then the first chunk, which must be IHDR. */
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** SOI (FF D8) followed by the start of a marker (FF). */
const JPEG = [0xff, 0xd8, 0xff];
const GIF87A = ascii('GIF87a');
const GIF89A = ascii('GIF89a');
/** RIFF <size> WEBP, then a VP8 / VP8L / VP8X chunk. */
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const WEBP_CHUNKS = [ascii('VP8 '), ascii('VP8L'), ascii('VP8X')];

/**
 * The image type of `bytes` from its signature (magic numbers), or null for anything that is not a
 * PNG, JPEG, WebP or GIF: SVG (XML text, which can carry scripts), HTML, PDF, plain text, empty input.
 * Only the signature is read; a file whose signature matches but whose rest is damaged is accepted
 * (decoding images is not this API's job; browsers refuse a broken one). docs/uploads.md.
 */
export function detectImageType(bytes: Uint8Array): ImageType | null {
  let kind: ImageKind | null = null;
  if (startsWith(bytes, PNG) && startsWith(bytes, ascii('IHDR'), 12)) kind = 'png';
  else if (startsWith(bytes, JPEG)) kind = 'jpeg';
  else if (startsWith(bytes, GIF87A) || startsWith(bytes, GIF89A)) kind = 'gif';
  else if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8) && WEBP_CHUNKS.some((chunk) => startsWith(bytes, chunk, 12)))
    kind = 'webp';
  return kind ? { kind, ...IMAGE_TYPES[kind] } : null;
}
