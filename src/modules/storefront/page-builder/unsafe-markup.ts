// Markup and URLs in page content that would run script in a browser (docs/page-builder.md, "Active
// content"). The page builder's documents are free-form JSON, so the API cannot know which strings the
// storefront renders as HTML or puts into href/src: every string is checked as if it were both, i.e.
// as rich HTML (the platform's allow-list, src/platform/values/markup.ts) and, anywhere in it, for what
// would run script as a URL or break out of an attribute. Refused, never rewritten (markup.ts says why).
import { decodeCharacterReferences, htmlProblem, INLINE_IMAGE_TYPES } from '../../../platform/values/markup';

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
const INLINE_IMAGES = new Set(INLINE_IMAGE_TYPES);

/**
 * Why a string of page content is refused, or null: anywhere in it (as text, as an attribute value, as
 * a bare URL) an active element (<script>, <iframe>, <object>, <embed>, ...), an event-handler
 * attribute (on...=), a javascript:/vbscript: URL or a data: URL that is not a raster image; then, as
 * rich HTML, anything outside the platform's allow-list (elements, attributes, URLs, inline CSS) and any
 * template expression ({{...}}, ${...}, ...). Checked on the text after decoding character references
 * (`java&#x09;script:`, `&lt;script&gt;`), case-insensitively, and for schemes with tab, LF and CR
 * removed as a URL parser removes them (`java\tscript:`).
 */
export function findUnsafeMarkup(raw: string): string | null {
  // Nothing to find without one of these characters (most strings of a page): skip the decoding.
  if (!/[<=:&{%]/.test(raw)) return null;
  return activeContent(raw) ?? htmlProblem(raw);
}

function activeContent(raw: string): string | null {
  const text = decodeCharacterReferences(raw);
  const tag = ACTIVE_TAG.exec(text);
  if (tag) return `must not contain a <${tag[1]!.toLowerCase()}> element (active content is refused, not removed)`;
  const handler = EVENT_HANDLER.exec(text);
  if (handler) return `must not contain an event-handler attribute (${handler[1]!.toLowerCase()}=)`;
  const url = text.replace(/[\t\n\r]/g, '').toLowerCase();
  const scheme = SCRIPT_SCHEME.exec(url);
  if (scheme) return `must not contain a ${scheme[1]}: URL`;
  for (const [, mediaType] of url.matchAll(DATA_URL)) {
    if (!INLINE_IMAGES.has(mediaType!)) {
      return `must not contain a data: URL of type ${mediaType} (only PNG, JPEG, GIF, WebP and AVIF images may be inline)`;
    }
  }
  return null;
}
