// Markup and URLs in page content that would run script in a browser (docs/page-builder.md, "Active
// content"). The page builder's documents are free-form JSON, so the API cannot know which strings the
// storefront renders as HTML or puts into href/src: every string is checked as if it were both. Refused,
// never rewritten: a sanitiser silently changes what the brand saved, and its own parsing is an attack
// surface; a 400 naming the field is explicit and the editor can fix it.

/** Elements that run or embed active content, or re-point every relative link of the page. */
const ACTIVE_ELEMENTS = ['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'base', 'meta'];
/** `<script`, `</script`, `< script`: the tag name ends at anything that cannot continue it (`<scripts`, `<object-card>` are other names). */
const ACTIVE_TAG = new RegExp(`<\\s*(?:/\\s*)?(${ACTIVE_ELEMENTS.join('|')})(?![a-z0-9-])`, 'i');
/**
 * An event-handler attribute: on<name>= after whitespace, '/' (`<svg/onload=`), a quote (`"onerror=`,
 * attributes may follow a quoted value directly, or break out of one) or a backtick, or at the start.
 */
const EVENT_HANDLER = /(?:^|[\s/"'`])(on[a-z]+)\s*=/i;
/** A script scheme, not preceded by a character that would make it part of a longer scheme (`xjavascript:`). */
const SCRIPT_SCHEME = /(?<![a-z0-9+.-])(javascript|vbscript|livescript):/;
/**
 * A data: URL with a media type (whitespace around it is allowed by the data: URL parser). Only raster
 * images may be inline: anything else (text/html, image/svg+xml, application/xhtml+xml, ...) can be a
 * document that runs script. `data:,text` (text/plain, no media type) matches nothing here.
 */
const DATA_URL = /(?<![a-z0-9+.-])data:\s*([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)/g;
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/webp', 'image/avif']);

/** Named character references that matter for hiding markup or a scheme (the rest are left as written). */
const NAMED: Record<string, string> = {
  amp: '&',
  AMP: '&',
  lt: '<',
  LT: '<',
  gt: '>',
  GT: '>',
  quot: '"',
  QUOT: '"',
  apos: "'",
  colon: ':',
  Tab: '\t',
  NewLine: '\n',
  nbsp: '\u00a0',
  sol: '/',
  bsol: '\\',
  lpar: '(',
  rpar: ')',
  equals: '=',
  grave: '`',
  num: '#',
  period: '.',
  comma: ',',
  semi: ';',
  excl: '!',
  quest: '?',
  plus: '+',
  lowbar: '_',
  commat: '@',
};
/** Legacy references a browser also decodes without the semicolon, longest first (`&ltscript` is `<script` in text). */
const WITHOUT_SEMICOLON = ['nbsp', 'quot', 'QUOT', 'amp', 'AMP', 'lt', 'LT', 'gt', 'GT'];
const REFERENCE = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z]+)(;?))/g;
/** How many times references are decoded: once by the HTML parser, and again by a renderer that decodes twice. */
const DECODE_PASSES = 3;

function decodeReferencesOnce(text: string): string {
  return text.replace(REFERENCE, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined, semi: string) => {
    if (name !== undefined) {
      if (semi === ';' && NAMED[name] !== undefined) return NAMED[name];
      const legacy = WITHOUT_SEMICOLON.find((prefix) => name.startsWith(prefix));
      return legacy ? NAMED[legacy] + name.slice(legacy.length) + semi : whole;
    }
    const codePoint = Number.parseInt(hex ?? dec!, hex ? 16 : 10);
    // As the HTML parser does: zero, surrogates and beyond Unicode become U+FFFD.
    if (!Number.isSafeInteger(codePoint) || codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      return '\ufffd';
    }
    return String.fromCodePoint(codePoint);
  });
}

/** The text with character references decoded, up to DECODE_PASSES times (each pass only shortens it). */
export function decodeCharacterReferences(text: string): string {
  let current = text;
  for (let pass = 0; pass < DECODE_PASSES && current.includes('&'); pass++) {
    const next = decodeReferencesOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Why a string of page content could run script in a browser, or null when it cannot: an active
 * element (<script>, <iframe>, <object>, <embed>, ...), an event-handler attribute (on...=), or a
 * javascript:/vbscript: URL or a data: URL that is not a raster image, anywhere in it. Checked on the
 * text after decoding character references (`java&#x09;script:`, `&lt;script&gt;`), case-insensitively,
 * and for schemes with tab, LF and CR removed as a URL parser removes them (`java\tscript:`).
 */
export function findUnsafeMarkup(raw: string): string | null {
  // Nothing to find without one of these characters (most strings of a page): skip the decoding.
  if (!/[<=:&]/.test(raw)) return null;
  const text = decodeCharacterReferences(raw);
  const tag = ACTIVE_TAG.exec(text);
  if (tag) return `must not contain a <${tag[1]!.toLowerCase()}> element (active content is refused, not removed)`;
  const handler = EVENT_HANDLER.exec(text);
  if (handler) return `must not contain an event-handler attribute (${handler[1]!.toLowerCase()}=)`;
  const url = text.replace(/[\t\n\r]/g, '').toLowerCase();
  const scheme = SCRIPT_SCHEME.exec(url);
  if (scheme) return `must not contain a ${scheme[1]}: URL`;
  for (const [, mediaType] of url.matchAll(DATA_URL)) {
    if (!INLINE_IMAGE_TYPES.has(mediaType!)) {
      return `must not contain a data: URL of type ${mediaType} (only PNG, JPEG, GIF, WebP and AVIF images may be inline)`;
    }
  }
  return null;
}
