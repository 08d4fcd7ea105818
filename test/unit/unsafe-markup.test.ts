// findUnsafeMarkup: the page builder's refusal of content that would run script (docs/page-builder.md,
// "Active content"), with the obfuscations browsers undo (case, whitespace, character references).
import { describe, expect, it } from 'vitest';
import { contentProblem } from '../../src/modules/storefront/page-builder/content';
import { findUnsafeMarkup } from '../../src/modules/storefront/page-builder/unsafe-markup';
import { decodeCharacterReferences } from '../../src/platform/values/markup';

const refused: [string, RegExp][] = [
  // Active elements.
  ['<script>alert(1)</script>', /<script> element/],
  ['<SCRIPT src=//evil.example/x.js></SCRIPT>', /<script>/],
  ['<ScRiPt\n>alert(1)</script>', /<script>/],
  ['< script>alert(1)', /<script>/],
  ['</script><script>', /<script>/],
  ['<svg><script>alert(1)</script></svg>', /<script>/],
  ['&lt;script&gt;alert(1)&lt;/script&gt;', /<script>/],
  ['&amp;lt;script&amp;gt;', /<script>/],
  ['&ltscript>alert(1)', /<script>/],
  ['&#60;script&#62;', /<script>/],
  ['<iframe src="https://example.com"></iframe>', /<iframe> element/],
  ['<IFRAME/src=x>', /<iframe>/],
  ['<object data="x.swf">', /<object> element/],
  ['<embed src="x">', /<embed> element/],
  ['<frameset><frame src=x>', /<frameset>/],
  ['<applet code=x>', /<applet>/],
  ['<base href="https://evil.example/">', /<base>/],
  ['<meta http-equiv="refresh" content="0;url=https://evil.example">', /<meta>/],
  // Event-handler attributes.
  ['<img src=x onerror=alert(1)>', /event-handler attribute \(onerror=\)/],
  ['<svg/onload=alert(1)>', /onload=/],
  ['<img src="x"onerror="alert(1)">', /onerror=/],
  ['<body ONLOAD = "alert(1)">', /onload=/],
  ['<a\tonclick=alert(1)>x</a>', /onclick=/],
  ['<a\nonmouseover=alert(1)>x</a>', /onmouseover=/],
  ["<img alt='>' onerror=alert(1)>", /onerror=/],
  ['" onmouseover="alert(1)', /onmouseover=/],
  ['onfocus=alert(1) autofocus', /onfocus=/],
  ['<div o&#110;click=alert(1)>', /onclick=/],
  // Script URLs, anywhere in the string.
  ['javascript:alert(1)', /javascript: URL/],
  ['JaVaScRiPt:alert(1)', /javascript: URL/],
  ['   javascript:alert(1)', /javascript:/],
  ['\tjavascript:alert(1)', /javascript:/],
  ['java\tscript:alert(1)', /javascript:/],
  ['java\nscr\ript:alert(1)', /javascript:/],
  ['java&#x09;script:alert(1)', /javascript:/],
  ['java&#9;script:alert(1)', /javascript:/],
  ['java&Tab;script:alert(1)', /javascript:/],
  ['java&NewLine;script:alert(1)', /javascript:/],
  ['&#106;avascript:alert(1)', /javascript:/],
  ['&#x6A;avascript:alert(1)', /javascript:/],
  ['&#0000106avascript:alert(1)', /javascript:/],
  ['javascript&colon;alert(1)', /javascript:/],
  ['javascript&#58;alert(1)', /javascript:/],
  ['javascript&#x3a;alert(1)', /javascript:/],
  ['<a href="javascript:alert(1)">Click</a>', /javascript:/],
  ["<a href='  JAVASCRIPT:alert(1)'>Click</a>", /javascript:/],
  ['<a href=javascript:alert(1)>Click</a>', /javascript:/],
  ['<a href="jav&#x61;script:alert(1)">Click</a>', /javascript:/],
  ['background: url(javascript:alert(1))', /javascript:/],
  ['vbscript:msgbox(1)', /vbscript: URL/],
  ['VBScript:msgbox(1)', /vbscript:/],
  ['livescript:alert(1)', /livescript:/],
  // data: URLs that are documents.
  ['data:text/html,<b>hi</b>', /data: URL of type text\/html/],
  ['data:text/html;base64,PGI+aGk8L2I+', /text\/html/],
  ['DATA:TEXT/HTML,hi', /text\/html/],
  ['data: text/html,hi', /text\/html/],
  ['<a href="da&#x74;a:text/html,hi">x</a>', /text\/html/],
  ['<img src="data:image/svg+xml;base64,PHN2Zz4=">', /image\/svg\+xml/],
  ['data:application/xhtml+xml,x', /application\/xhtml\+xml/],
  ['data:text/javascript,alert(1)', /text\/javascript/],
  // Outside the allow-list of rich HTML (issue 26, finding 6): stylesheets, other elements, template expressions.
  ['<style>@import url(https://evil.example/x.css)</style>', /<style> element/],
  ['<link rel=stylesheet href=https://evil.example/x.css>', /<link> element/],
  ['{{constructor.constructor("alert(1)")()}}', /template expression \(\{\{ at index 0\)/],
  ['<p>{{7*7}}</p>', /template expression/],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template expression is the payload
  ['${alert(1)}', /template expression \(\$\{/],
  ['<p style="color:red;@import url(x.css)">x</p>', /at-rule/],
  ['<object-card title="Plans"></object-card>', /<object-card> element/],
  ['<scripts>', /<scripts> element/],
  ['<form action="https://evil.example"><input name=password></form>', /<form> element/],
  ['<a href="https://example.com" target="_blank" data-bind="click: x">x</a>', /attribute data-bind on <a>/],
  ['<!-- comment -->', /comment/],
];

const accepted = [
  'Feel like yourself again',
  'Line one\nLine two\r\n\tindented',
  '<p>Hello <strong>world</strong></p>',
  '<a href="https://example.com/programs">Programs</a>',
  '<a href="/about" title="About us">About</a>',
  '<img src="https://cdn.example.com/a.png" alt="A" width="10">',
  '<img src="data:image/png;base64,iVBORw0KGgo=">',
  'data:image/jpeg;base64,/9j/4AAQ',
  'data:image/webp;base64,UklGR',
  'data:,plain text',
  'Q&A: questions & answers, R&D, &copy; 2026, &lt;3 our patients',
  'Data: 50% of patients lose weight',
  'Weight loss: online consultations, one-on-one',
  'x = 1 and turn it on = 2',
  'mailto:hello@example.com',
  'tel:+15550100000',
  'https://example.com/?a=1&online=2',
  'nojavascript:here',
  'subscription: monthly; transcript: attached; postscript: thanks',
  'Use code SAVE10 at checkout: 10% off',
  '<p style="color:#2F6FED;background:url(https://cdn.example.com/bg.png)">styled</p>',
  '<table><tr><td colspan="2" align="center">cell</td></tr></table>',
];

describe('findUnsafeMarkup', () => {
  it.each(refused)('refuses %j', (text, reason) => {
    expect(findUnsafeMarkup(text)).toMatch(reason);
  });

  it.each(accepted)('accepts %j', (text) => {
    expect(findUnsafeMarkup(text)).toBeNull();
  });

  it('decodes numeric, named and legacy character references, a bounded number of times', () => {
    expect(decodeCharacterReferences('&#106;&#x61;&#X76;&colon;&Tab;&NewLine;&lt;&LT&gtx&amp;')).toBe('jav:\t\n<<>x&');
    // Unknown names stay as written; zero and surrogates become U+FFFD, as in a browser.
    expect(decodeCharacterReferences('&copy; &bogus; &#0; &#xD800;')).toBe('&copy; &bogus; \ufffd \ufffd');
    // Three levels of encoding are undone, a fourth is not (no renderer decodes four times).
    expect(decodeCharacterReferences('&amp;amp;lt;')).toBe('<');
    expect(decodeCharacterReferences('&amp;amp;amp;lt;')).toBe('&lt;');
  });
});

describe('contentProblem', () => {
  it('names the path of the offending string inside the document, keys included', () => {
    const doc = {
      sections: [
        { type: 'hero', title: 'Welcome' },
        { type: 'html', blocks: [{ html: '<p>ok</p>' }, { html: '<p>hi</p><script>alert(1)</script>' }] },
      ],
    };
    expect(contentProblem(doc)).toEqual({ path: ['sections', '1', 'blocks', '1', 'html'], message: expect.stringMatching(/<script>/) });
    expect(contentProblem({ links: [{ href: 'JaVaScRiPt:alert(1)' }] })).toEqual({
      path: ['links', '0', 'href'],
      message: 'must not contain a javascript: URL',
    });
    expect(contentProblem({ attrs: { '<img src=x onerror=alert(1)>': true } })).toEqual({
      path: ['attrs', '"<img src=x onerror=alert(1)>"'],
      message: 'the key must not contain an event-handler attribute (onerror=)',
    });
    expect(contentProblem({ sections: [{ type: 'hero', title: 'Welcome', image: 'https://cdn.example.com/a.png' }] })).toBeNull();
  });
});
