// Real, minimal image files (1×1 pixel), checked with file(1): each is a complete, decodable image of
// its type. Used by the image-type unit test and the upload route tests.
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

export const IMAGES = {
  /** PNG, 1×1 gray+alpha (68 bytes; IHDR, IDAT and IEND with valid CRCs). */
  png: fromBase64('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='),
  /** JPEG (JFIF), 1×1 gray (134 bytes). */
  jpeg: fromBase64(
    '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  ),
  /** GIF89a, 1×1 (42 bytes). */
  gif: fromBase64('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'),
  /** WebP lossless (VP8L), 1×1 (34 bytes). */
  webp: fromBase64('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=='),
  /** WebP lossy (VP8), 1×1 (42 bytes). */
  webpLossy: fromBase64('UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA'),
};

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Files that are not images this API accepts. */
export const NOT_IMAGES = {
  svg: utf8('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>'),
  svgWithXmlDeclaration: utf8('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'),
  html: utf8('<!doctype html><html><body><img src=x onerror=alert(1)></body></html>'),
  text: utf8('just some text'),
  pdf: utf8('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'),
  empty: new Uint8Array(0),
  /** The PNG signature alone: no IHDR chunk after it. */
  pngSignatureOnly: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  /** A RIFF container that is not WebP (a WAVE file header). */
  riffWave: utf8('RIFF\x24\x00\x00\x00WAVEfmt '),
  /** Two bytes of a JPEG start, cut short. */
  truncatedJpeg: new Uint8Array([0xff, 0xd8]),
};

/** A multipart body with the file under `field` (default image), as a client would send it. */
export function imageForm(
  bytes: Uint8Array,
  options: { field?: string; filename?: string; type?: string; extra?: Record<string, string> } = {},
) {
  const form = new FormData();
  form.append(
    options.field ?? 'image',
    new Blob([bytes as Uint8Array<ArrayBuffer>], { type: options.type ?? 'application/octet-stream' }),
    options.filename ?? 'upload.bin',
  );
  for (const [name, value] of Object.entries(options.extra ?? {})) form.append(name, value);
  return form;
}
