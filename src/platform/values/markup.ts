// Markup in stored text fields (docs/api-conventions.md, "Markup in stored fields"). Every text field that
// a storefront or an email shows follows one of two rules, implemented here once:
//
// - plain text (names, descriptions, SEO texts, subjects, SMS): no markup at all. Renderers escape it;
//   refusing tags as well means a renderer that forgets to escape still shows text, never elements.
// - rich HTML (page content, email bodies): elements and attributes on an allow-list, URLs limited to
//   https:, mailto:, tel:, site paths and fragments (images: https, site paths and inline raster data),
//   inline CSS without at-rules, escapes, comments, expression() or url() to anything but an image.
//
// Both refuse template expressions ({{, {%, ${, #{, <%): a storefront framework or a template engine
// that meets one would evaluate it. Fields that declare merge fields accept {{name}} tokens only.
//
// Refused, never rewritten: a sanitiser silently changes what the brand saved, and its own HTML
// parsing is an attack surface (mutation XSS). A 400 naming the field lets the editor fix the content,
// and what is stored is safe as stored. Nothing here imports the rest of the platform (a values-level
// helper: the zod fields are in strings.ts, the email text part is made in providers/messaging).

// ---------------------------------------------------------------------------------------------------
// Character references: decoded as a browser decodes them, a bounded number of times, so that
// `&lt;script&gt;` or `java&#x09;script:` is seen for what a renderer that decodes (again) makes of it.

/** Named character references that matter for hiding markup, a scheme or a template (the rest stay as written). */
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
  dollar: '$',
  percnt: '%',
  lbrace: '{',
  lcub: '{',
  rbrace: '}',
  rcub: '}',
  ast: '*',
  midast: '*',
};
/** Legacy references a browser also decodes without the semicolon, longest first (`&ltscript` is `<script` in text). */
const WITHOUT_SEMICOLON = ['nbsp', 'quot', 'QUOT', 'amp', 'AMP', 'lt', 'LT', 'gt', 'GT'];
const REFERENCE = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z]+)(;?))/g;
/** How many times references are decoded: once by the HTML parser, and again by a renderer that decodes twice. */
export const DECODE_PASSES = 3;

/** The text with its character references decoded once (`more`: named references to decode beyond NAMED). */
export function decodeReferencesOnce(text: string, more: Record<string, string> = {}): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined, semi: string) => {
    if (name !== undefined) {
      if (semi === ';' && NAMED[name] !== undefined) return NAMED[name];
      if (semi === ';' && Object.hasOwn(more, name)) return more[name]!;
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

/** The text as written, then decoded once, twice, ... up to DECODE_PASSES times (each distinct form once). */
export function decodedForms(text: string): string[] {
  const forms = [text];
  let current = text;
  for (let pass = 0; pass < DECODE_PASSES && current.includes('&'); pass++) {
    const next = decodeReferencesOnce(current);
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

/** The text with character references decoded, up to DECODE_PASSES times. */
export const decodeCharacterReferences = (text: string) => decodedForms(text).at(-1)!;

// ---------------------------------------------------------------------------------------------------
// Template expressions and merge fields.

/** A merge-field token: {{firstName}}, also written {{ firstName }}. Names are identifiers. Global: use with matchAll/replace only. */
export const MERGE_FIELD = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MERGE_FIELD_AT = new RegExp(MERGE_FIELD.source, 'y');
const MERGE_FIELD_FIRST = new RegExp(MERGE_FIELD.source);
/** Openers of the usual template languages: Mustache, Handlebars, Vue, Angular, Jinja, Liquid ({{, {%), JS/EL (${), Ruby/Pug (#{), ERB/EJS (<%). */
const TEMPLATE_OPENER = /\{\{|\{%|\$\{|#\{|<%/g;

export interface MarkupOptions {
  /** The field may hold merge fields ({{firstName}}): those tokens are not template expressions. */
  mergeFields?: boolean;
}

const mergeFieldAt = (text: string, index: number) => {
  MERGE_FIELD_AT.lastIndex = index;
  return MERGE_FIELD_AT.test(text);
};

/** The first template expression of the text (as written or decoded), or null. */
export function templateProblem(raw: string, options: MarkupOptions = {}): string | null {
  if (!/[{%&]/.test(raw)) return null;
  for (const text of decodedForms(raw)) {
    for (const match of text.matchAll(TEMPLATE_OPENER)) {
      if (options.mergeFields && match[0] === '{{' && mergeFieldAt(text, match.index)) continue;
      const allowed = options.mergeFields ? '; only merge fields such as {{firstName}} are allowed' : '';
      return `must not contain a template expression (${match[0]} at index ${match.index}${text === raw ? '' : ', after decoding character references'})${allowed}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Plain text.

/** What the HTML tokenizer treats as the start of markup: a tag, an end tag, a comment or declaration, a processing instruction. */
const MARKUP_START = /<[A-Za-z/!?]/;

function describeMarkup(text: string, index: number): string {
  const next = text[index + 1];
  if (next === '!') return 'a comment or declaration (<!)';
  if (next === '?') return 'a processing instruction (<?)';
  const name = /^<\/?([A-Za-z][A-Za-z0-9-]{0,30})(?![A-Za-z0-9-])/.exec(text.slice(index, index + 40))?.[1];
  const what = name ? `<${next === '/' ? '/' : ''}${name.toLowerCase()}>` : next === '/' ? '</' : 'a tag';
  return `${what} at index ${index}`;
}

/**
 * Why a plain-text value is not plain text, or null: markup (`<b`, `</`, `<!`, `<?`), as written or after
 * decoding character references (`&lt;b&gt;`), or a template expression. `<` before anything else
 * (`<3`, `a < b`, `<=`) is text and allowed, as are quotes and ampersands.
 */
export function plainTextProblem(raw: string, options: MarkupOptions = {}): string | null {
  if (/[<&]/.test(raw)) {
    for (const text of decodedForms(raw)) {
      const found = MARKUP_START.exec(text);
      if (found) {
        const decoded = text === raw ? '' : ', after decoding character references';
        return `must be plain text without HTML markup (${describeMarkup(text, found.index)}${decoded})`;
      }
    }
  }
  return templateProblem(raw, options);
}

// ---------------------------------------------------------------------------------------------------
// URLs.

/** An absolute https URL with a host and no user name or password in it. */
export function isHttpsUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' && !/\s/.test(value);
}

/**
 * A path on the site: starts with one '/' (not '//' or '/\', which browsers read as another host), no
 * whitespace. Query and fragment allowed (/programs?x=1#faq).
 */
export function isSitePath(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') && !/\s/.test(value);
}

/** Media types an inline image (data: URL) may have: raster images only (SVG is a document that can run script). */
export const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/webp', 'image/avif'];
const INLINE_IMAGE = new RegExp(`^data:(?:${INLINE_IMAGE_TYPES.map((t) => t.replace(/[/+]/g, '\\$&')).join('|')})[;,]`, 'i');

/**
 * An attribute's URL as a browser reads it: tab, LF and CR removed anywhere, leading and trailing C0
 * controls and spaces trimmed (by index: a trailing-run regex would be quadratic on a long run of spaces).
 */
function urlAsRead(value: string): string {
  const url = value.replace(/[\t\n\r]/g, '');
  let start = 0;
  let end = url.length;
  while (start < end && url.charCodeAt(start) <= 0x20) start++;
  while (end > start && url.charCodeAt(end - 1) <= 0x20) end--;
  return url.slice(start, end);
}

const LINK_RULE = 'an https:, mailto: or tel: URL, a path on the site starting with / or a #fragment';
const IMAGE_RULE = 'an https: URL, a path on the site starting with / or an inline PNG, JPEG, GIF, WebP or AVIF image (data:image/...)';

function isLink(url: string): boolean {
  return isHttpsUrl(url) || isSitePath(url) || /^#\S*$/.test(url) || /^(?:mailto|tel):\S+$/i.test(url);
}
const isImage = (url: string) => isHttpsUrl(url) || isSitePath(url) || INLINE_IMAGE.test(url);

// ---------------------------------------------------------------------------------------------------
// Rich HTML: the allow-list.

/** Elements rich HTML may contain (opening and closing tags). Everything else is refused. */
export const HTML_ELEMENTS: readonly string[] = [
  'a',
  'abbr',
  'address',
  'article',
  'aside',
  'b',
  'bdi',
  'bdo',
  'blockquote',
  'br',
  'caption',
  'center',
  'cite',
  'code',
  'col',
  'colgroup',
  'dd',
  'del',
  'details',
  'dfn',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'font',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'main',
  'mark',
  'nav',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'samp',
  'section',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'u',
  'ul',
  'var',
  'wbr',
];
const ELEMENTS = new Set(HTML_ELEMENTS);

/** Attributes any allowed element may carry (and aria-*). */
export const GLOBAL_ATTRIBUTES: readonly string[] = ['class', 'id', 'title', 'lang', 'dir', 'style', 'role', 'align', 'valign'];
/** Attributes of particular elements. href and src are URLs, style is CSS (checked below); the rest are inert text. */
export const ELEMENT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'target', 'rel'],
  img: ['src', 'alt', 'width', 'height', 'border', 'loading'],
  table: ['width', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
  tr: ['bgcolor', 'height'],
  td: ['colspan', 'rowspan', 'width', 'height', 'bgcolor', 'nowrap'],
  th: ['colspan', 'rowspan', 'width', 'height', 'bgcolor', 'nowrap', 'scope'],
  col: ['span', 'width'],
  colgroup: ['span', 'width'],
  ol: ['start', 'reversed', 'type'],
  ul: ['type'],
  li: ['value'],
  font: ['color', 'face', 'size'],
  del: ['datetime'],
  ins: ['datetime'],
  time: ['datetime'],
  details: ['open'],
  hr: ['width', 'size', 'color'],
};
const GLOBALS = new Set(GLOBAL_ATTRIBUTES);
const PER_ELEMENT = new Map(Object.entries(ELEMENT_ATTRIBUTES).map(([element, names]) => [element, new Set(names)]));
const attributeAllowed = (element: string, name: string) =>
  GLOBALS.has(name) || /^aria-[a-z]+$/.test(name) || PER_ELEMENT.get(element)?.has(name) === true;

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f']);
const isAsciiLetter = (ch: string | undefined) => ch !== undefined && /^[A-Za-z]$/.test(ch);
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (ch) => ch.toLowerCase());

export interface HtmlAttribute {
  /** Lower-cased (ASCII), as the HTML parser does. */
  name: string;
  /** As written (character references not decoded); null: no value (`<td nowrap>`). */
  value: string | null;
  quoted: boolean;
}

export type HtmlToken =
  | { kind: 'text'; text: string; index: number }
  | { kind: 'start' | 'end'; name: string; attributes: HtmlAttribute[]; index: number }
  /** `<!...`, `<?...`, `</` not followed by a letter: comments, declarations and bogus comments. */
  | { kind: 'other'; opener: string; index: number };

/**
 * The tokens of an HTML fragment, following the HTML tokenizer's data and tag states: `<` starts a tag
 * only before an ASCII letter (`</` + letter: an end tag; `<!`, `<?`, `</` + other: a comment or
 * declaration, up to the next `>`); tag and attribute names end at whitespace, `/`, `>` (and `=` for
 * attribute names, which may start with one); values are double-quoted, single-quoted or unquoted
 * (ending at whitespace or `>`); an attribute may follow a quoted value without whitespace. A tag left
 * open at the end runs to the end of the text (its attributes are still reported).
 */
export function htmlTokens(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  const n = html.length;
  let textStart = 0;
  let i = 0;
  const flushText = (end: number) => {
    if (end > textStart) tokens.push({ kind: 'text', text: html.slice(textStart, end), index: textStart });
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const next = html[lt + 1];
    const endTag = next === '/';
    if (next === '!' || next === '?' || (endTag && !isAsciiLetter(html[lt + 2]))) {
      flushText(lt);
      tokens.push({ kind: 'other', opener: html.slice(lt, lt + 2), index: lt });
      const close = html.indexOf('>', lt + 2);
      i = textStart = close === -1 ? n : close + 1;
      continue;
    }
    if (!isAsciiLetter(next) && !endTag) {
      i = lt + 1;
      continue;
    }
    flushText(lt);
    let j = lt + (endTag ? 2 : 1);
    const nameStart = j;
    while (j < n && !WHITESPACE.has(html[j]!) && html[j] !== '/' && html[j] !== '>') j++;
    const name = asciiLower(html.slice(nameStart, j));
    const attributes: HtmlAttribute[] = [];
    while (j < n) {
      while (j < n && (WHITESPACE.has(html[j]!) || html[j] === '/')) j++;
      if (j >= n) break;
      if (html[j] === '>') {
        j++;
        break;
      }
      const attrStart = j++;
      while (j < n && !WHITESPACE.has(html[j]!) && html[j] !== '/' && html[j] !== '>' && html[j] !== '=') j++;
      const attrName = asciiLower(html.slice(attrStart, j));
      while (j < n && WHITESPACE.has(html[j]!)) j++;
      if (html[j] !== '=') {
        attributes.push({ name: attrName, value: null, quoted: false });
        continue;
      }
      j++;
      while (j < n && WHITESPACE.has(html[j]!)) j++;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        const end = close === -1 ? n : close;
        attributes.push({ name: attrName, value: html.slice(j + 1, end), quoted: true });
        j = close === -1 ? n : close + 1;
      } else {
        const valueStart = j;
        while (j < n && !WHITESPACE.has(html[j]!) && html[j] !== '>') j++;
        attributes.push({ name: attrName, value: html.slice(valueStart, j), quoted: false });
      }
    }
    tokens.push({ kind: endTag ? 'end' : 'start', name, attributes, index: lt });
    i = textStart = j;
  }
  flushText(n);
  return tokens;
}

const NAME = /^[a-z][a-z0-9-]{0,30}$/;
/** Names are echoed only when they look like names (nothing else of the value is repeated in an error). */
const attributeName = (name: string) => (NAME.test(name) ? name : 'on...');

/** Why inline CSS (a style attribute's value, references decoded) is refused, or null. */
export function styleProblem(css: string): string | null {
  if (css.includes('\\')) return 'must not contain a backslash (a CSS escape) in a style attribute';
  if (css.includes('/*')) return 'must not contain a comment in a style attribute';
  if (css.includes('@')) return 'must not contain an at-rule (@import, ...) in a style attribute';
  const lower = asciiLower(css);
  for (const word of ['expression', 'behavior', '-moz-binding', 'javascript:', 'vbscript:']) {
    if (lower.includes(word)) return `must not contain ${word} in a style attribute`;
  }
  for (const match of lower.matchAll(/url\s*\(/g)) {
    const start = match.index + match[0].length;
    const close = css.indexOf(')', start);
    const url = urlAsRead(
      css
        .slice(start, close === -1 ? css.length : close)
        .trim()
        .replace(/^(["'])(.*)\1$/s, '$2'),
    );
    if (!isImage(url)) return `must not contain url() in a style attribute other than ${IMAGE_RULE}`;
  }
  return null;
}

/** A URL attribute's value with merge fields: they may only follow its ? or #, after a URL that is allowed on its own. */
function urlWithMergeFields(url: string, allowed: (url: string) => boolean): boolean {
  const first = MERGE_FIELD_FIRST.exec(url);
  if (!first) return allowed(url);
  const before = url.slice(0, first.index);
  return /[?#]/.test(before) && allowed(before);
}

function attributeNameProblem(element: string, name: string): string | null {
  if (/^on/.test(name)) return `must not contain an event-handler attribute (${attributeName(name)}=)`;
  if (attributeAllowed(element, name)) return null;
  const what = NAME.test(name) ? `the attribute ${name}` : 'an unknown attribute';
  return `must not contain ${what} on <${element}> (only the documented attributes are allowed)`;
}

function attributeValueProblem(attribute: HtmlAttribute, options: MarkupOptions): string | null {
  const { name } = attribute;
  if (attribute.value === null) return null;
  // What the parser makes of the value: character references decoded once.
  const value = decodeReferencesOnce(attribute.value);
  const merged = options.mergeFields === true && value.includes('{{');
  if (merged && !attribute.quoted) return `must not put a merge field in an unquoted attribute value (${name}=)`;
  if (name === 'href') {
    const url = urlAsRead(value);
    if (!(merged ? urlWithMergeFields(url, isLink) : isLink(url))) {
      return `must have an href that is ${LINK_RULE}${merged ? ' (merge fields only after its ? or #)' : ''}`;
    }
  } else if (name === 'src') {
    if (merged) return 'must not put a merge field in an image src';
    if (!isImage(urlAsRead(value))) return `must have an img src that is ${IMAGE_RULE}`;
  } else if (name === 'style') {
    if (merged) return 'must not put a merge field in a style attribute';
    return styleProblem(value);
  }
  return null;
}

function scanHtml(html: string, depth: number, options: MarkupOptions): string | null {
  for (const token of htmlTokens(html)) {
    if (token.kind === 'text') {
      // A renderer that decodes the text again would see what the references spell.
      if (depth < DECODE_PASSES && token.text.includes('&')) {
        const decoded = decodeReferencesOnce(token.text);
        const problem = decoded === token.text ? null : scanAgain(decoded, depth + 1, options);
        if (problem) return problem;
      }
      continue;
    }
    if (token.kind === 'other') {
      return token.opener === '</'
        ? 'must not contain a malformed end tag (</ not followed by a name)'
        : `must not contain an HTML comment, declaration or processing instruction (${token.opener})`;
    }
    if (!ELEMENTS.has(token.name)) {
      const what = NAME.test(token.name) ? `a <${token.name}> element` : 'an unknown element';
      return `must not contain ${what} (only the documented elements are allowed)`;
    }
    if (token.kind === 'end') continue;
    // Names first, so an event handler is named as such whatever comes before it in the tag.
    const names = token.attributes.map((a) => attributeNameProblem(token.name, a.name)).find(Boolean);
    if (names) return names;
    for (const attribute of token.attributes) {
      const problem = attributeValueProblem(attribute, options);
      if (problem) return problem;
      // A renderer that takes the value (decoded by the parser) as markup, e.g. a tooltip of HTML.
      if (attribute.value !== null && depth < DECODE_PASSES) {
        const nested = scanAgain(decodeReferencesOnce(attribute.value), depth + 1, options);
        if (nested) return nested;
      }
    }
  }
  return null;
}

/** A decoded text as markup: only when it can hold a tag or another reference (most cannot: no work). */
const scanAgain = (decoded: string, depth: number, options: MarkupOptions) =>
  /[<&]/.test(decoded) ? scanHtml(decoded, depth, options) : null;

/**
 * Why a rich-HTML value is refused, or null: an element or attribute outside the allow-list
 * (HTML_ELEMENTS, GLOBAL_ATTRIBUTES, ELEMENT_ATTRIBUTES; on*= handlers named as such), an href or src
 * outside the URL rules, inline CSS outside the style rule, a comment or declaration, or a template
 * expression. Text is checked again after decoding its character references (up to DECODE_PASSES times),
 * so markup spelt with references is refused as markup.
 */
export function htmlProblem(raw: string, options: MarkupOptions = {}): string | null {
  return scanHtml(raw, 0, options) ?? templateProblem(raw, options);
}

// ---------------------------------------------------------------------------------------------------
// The plain-text part of an HTML email.

const BLOCK_ENDS = new Set(['p', 'div', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'table', 'ul', 'ol', 'section']);
/** References common in email copy beyond the ones above (the rest stay as written). */
const TEXT_ENTITIES: Record<string, string> = {
  copy: '©',
  reg: '®',
  trade: '™',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  euro: '€',
  pound: '£',
  middot: '·',
  bull: '•',
};

/**
 * The plain-text alternative of an HTML body (allowed HTML, as htmlProblem accepts): tags dropped,
 * <br> and the ends of blocks as line breaks, a link as `text (url)` when its text is not the url,
 * references decoded once, runs of blank lines and spaces collapsed.
 */
export function htmlToText(html: string): string {
  const decode = (text: string) => decodeReferencesOnce(text, TEXT_ENTITIES);
  let out = '';
  let link: { href: string; start: number } | null = null;
  for (const token of htmlTokens(html)) {
    if (token.kind === 'text') out += decode(token.text).replace(/\s+/g, ' ');
    else if (token.kind === 'start' && token.name === 'br') out += '\n';
    else if (token.kind === 'start' && token.name === 'a') {
      const href = token.attributes.find((a) => a.name === 'href')?.value;
      link = href ? { href: urlAsRead(decode(href)), start: out.length } : null;
    } else if (token.kind === 'end' && token.name === 'a' && link) {
      const label = out.slice(link.start).trim();
      if (label !== link.href && !link.href.startsWith('#')) out += ` (${link.href.replace(/^mailto:/i, '')})`;
      link = null;
    } else if (token.kind === 'end' && BLOCK_ENDS.has(token.name)) out += '\n\n';
    else if (token.kind === 'start' && token.name === 'li') out += '\n- ';
    else if (token.kind === 'start' && (token.name === 'td' || token.name === 'th')) out += ' ';
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
