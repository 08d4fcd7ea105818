// The platform's markup rules (src/platform/values/markup.ts; docs/api-conventions.md, "Markup in stored
// fields"): plain text, rich HTML on an allow-list, template expressions and merge fields, the tokenizer
// they stand on (the HTML tokenizer's tag states, where a browser and a naive regex disagree) and the
// plain-text part of an HTML email.
import { describe, expect, it } from 'vitest';
import { htmlProblem, htmlTokens, htmlToText, plainTextProblem, styleProblem, templateProblem } from '../../src/platform/values/markup';

describe('plainTextProblem', () => {
  const refused: [string, RegExp][] = [
    ['<script>alert(1)</script>', /plain text without HTML markup \(<script> at index 0\)/],
    ['<img src=x onerror=alert(1)>', /<img> at index 0/],
    ['Weight <b>loss</b>', /<b> at index 7/],
    ['a</p>', /<\/p> at index 1/],
    ['<!-- hidden -->', /comment or declaration/],
    ['<?php echo 1 ?>', /processing instruction/],
    ['&lt;img src=x onerror=alert(1)&gt;', /<img> at index 0, after decoding character references/],
    ['&amp;lt;script&amp;gt;', /<script>.*after decoding/],
    ['&#60;svg onload=alert(1)&#62;', /<svg>/],
    ['{{constructor.constructor("alert(1)")()}}', /template expression \(\{\{ at index 0\)/],
    ['Hello {{firstName}}', /template expression/],
    ['{% if x %}', /template expression \(\{%/],
    ['#{7*7}', /template expression \(#\{/],
    ['<%= 7*7 %>', /template expression \(<%/],
    ['&#123;&#123;7*7}}', /template expression \(\{\{ at index 0, after decoding character references\)/],
  ];
  const accepted = [
    'Medical Weight Loss',
    'Men\'s health: 18+ & "<3" our patients',
    'Dose < 5 mg, a <= b, x<3, 1 <2',
    'Q&A, R&D, AT&T, &copy; 2026',
    'Save 10% {off} today',
    'Line one\nLine two',
  ];
  it.each(refused)('refuses %j', (text, reason) => expect(plainTextProblem(text)).toMatch(reason));
  it.each(accepted)('accepts %j', (text) => expect(plainTextProblem(text)).toBeNull());

  it('accepts merge fields where the field declares them, and nothing else in braces', () => {
    expect(plainTextProblem('Hi {{firstName}} and {{ clinicName }}', { mergeFields: true })).toBeNull();
    expect(plainTextProblem('Hi {{ }}', { mergeFields: true })).toMatch(/only merge fields/);
    expect(plainTextProblem('Hi {{{firstName}}}', { mergeFields: true })).toMatch(/template expression/);
    expect(plainTextProblem('Hi {{firstName}}{{a.b}}', { mergeFields: true })).toMatch(/\{\{ at index 16/);
    expect(plainTextProblem('Hi <b>{{firstName}}</b>', { mergeFields: true })).toMatch(/<b>/);
  });
});

describe('htmlProblem', () => {
  const refused: [string, RegExp][] = [
    // The review's payloads.
    ['<style>@import url(https://evil.example/x.css)</style>', /a <style> element \(only the documented elements/],
    ['<link rel=stylesheet href=https://evil.example/x.css>', /<link> element/],
    ['{{constructor.constructor("alert(1)")()}}', /template expression/],
    ['<p><script>alert(1)</script></p>', /<script> element/],
    ['<img src=x onerror=alert(1)>', /event-handler attribute \(onerror=\)/],
    // Elements outside the list, wherever the tokenizer sees a tag.
    ['<svg><animate attributeName=href values=javascript:alert(1) /></svg>', /<svg> element/],
    ['<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', /<math> element/],
    ['<noscript><p title="</noscript><img src=x onerror=alert(1)>">', /<noscript> element/],
    ['<template><img src=x onerror=alert(1)></template>', /<template> element/],
    ['<textarea></textarea>', /<textarea> element/],
    ['<meta http-equiv=refresh content="0;url=https://evil.example">', /<meta> element/],
    ['<base href="https://evil.example/">', /<base> element/],
    ['<form action=https://evil.example><button>Log in</button></form>', /<form> element/],
    ['<input autofocus onfocus=alert(1)>', /<input> element/],
    ['<my-widget></my-widget>', /<my-widget> element/],
    ['</script>', /<script> element/],
    ['<a"b>x', /an unknown element/],
    // Attributes: handlers by any spelling, then everything outside the list.
    ['<img src="https://x.example/a.png"onerror=alert(1)>', /onerror=/],
    ['<img/src="https://x.example/a.png"/onerror=alert(1)>', /onerror=/],
    ['<p ONCLICK="x">', /onclick=/],
    ['<p\nonmouseover=alert(1)>', /onmouseover=/],
    ['<img src="https://x.example/a.png" onerror=alert(1)', /onerror=/], // left open: still checked
    ['<a href="https://x.example" <script>', /unknown attribute on <a>/],
    ['<p =onclick=alert(1)>', /unknown attribute on <p>/],
    ['<a href="https://x.example" data-bind="click: steal">x</a>', /attribute data-bind on <a>/],
    ['<div ng-click="x">', /attribute ng-click on <div>/],
    ['<div x-data="{}" @click="x">', /attribute x-data on <div>/],
    ['<img srcset="https://x.example/a.png 1x">', /attribute srcset on <img>/],
    ['<p href="https://x.example">', /attribute href on <p>/],
    // URLs.
    ['<a href="javascript:alert(1)">x</a>', /href that is an https:, mailto: or tel: URL/],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', /href/],
    ['<a href=" javascript:alert(1)">x</a>', /href/],
    ['<a href="java\tscript:alert(1)">x</a>', /href/],
    ['<a href="&#x6A;avascript:alert(1)">x</a>', /href/],
    ['<a href="javascript&colon;alert(1)">x</a>', /href/],
    ['<a href="data:text/html,<script>alert(1)</script>">x</a>', /href/],
    ['<a href="http://example.com">x</a>', /href/],
    ['<a href="//evil.example/">x</a>', /href/],
    ['<a href="/\\evil.example/">x</a>', /href/],
    ['<a href="about">x</a>', /href/],
    ['<img src="data:image/svg+xml;base64,PHN2Zz4=">', /img src that is/],
    ['<img src="javascript:alert(1)">', /img src/],
    ['<img src=x>', /img src/],
    // Inline CSS.
    ['<p style="background:url(javascript:alert(1))">x</p>', /javascript:/],
    ['<p style="background:url(https://x.example/a.png);@import url(x.css)">x</p>', /at-rule/],
    ['<p style="width:expression(alert(1))">x</p>', /expression/],
    ['<p style="behavior:url(x.htc)">x</p>', /behavior/],
    ['<p style="-moz-binding:url(x.xml#x)">x</p>', /-moz-binding/],
    ['<p style="background:\\75 rl(x)">x</p>', /backslash/],
    ['<p style="color:red/**/">x</p>', /comment/],
    ['<p style="background:url(//evil.example/a.png)">x</p>', /url\(\)/],
    ['<p style="background:url(&quot;data:text/html,x&quot;)">x</p>', /url\(\)/],
    // Comments, declarations, bogus end tags.
    ['<!-- <img src=x onerror=alert(1)> -->', /comment, declaration or processing instruction \(<!\)/],
    ['<![CDATA[x]]>', /<!/],
    ['<!DOCTYPE html>', /<!/],
    ['<?xml version="1.0"?>', /<\?/],
    ['</ p>', /malformed end tag/],
    // Markup spelt with references, for a renderer that decodes the text again.
    ['<p>&lt;img src=x onerror=alert(1)&gt;</p>', /onerror=/],
    ['&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;', /<script> element/],
    ['<p title="&lt;img src=x onerror=alert(1)&gt;">x</p>', /onerror=/],
    // Template expressions.
    ['<p>{{7*7}}</p>', /template expression \(\{\{ at index 3\)/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template expression is the payload
    ['<p title="${alert(1)}">x</p>', /template expression \(\$\{/],
  ];
  const accepted = [
    '<p>Hello <strong>world</strong> &amp; friends &copy; 2026</p>',
    '<h1 id="top" class="title" style="color:#2F6FED;font-family:\'Helvetica Neue\', Arial">Title</h1>',
    '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer" title="Go">Go</a>',
    '<a href="/about#team">About</a> <a href="#faq">FAQ</a> <a href="mailto:care@example.com">Mail</a> <a href="tel:+15550100000">Call</a>',
    '<img src="https://cdn.example.com/a.png" alt="A" width="120" height="40"><img src="/uploads/x.png"><img src="data:image/png;base64,iVBORw0KGgo=">',
    '<table width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td colspan="2" align="center" bgcolor="#ffffff" nowrap>x</td></tr></table>',
    '<ul><li>one</li></ul><ol start="3"><li value="3">three</li></ol><br><hr>',
    '<p style="background:url(\'https://cdn.example.com/bg.png\') no-repeat">x</p>',
    '<div role="note" aria-label="Note" lang="en" dir="ltr">x</div>',
    'Plain text, a < b, <3, 50% off {sale}',
    '<p title="say &quot;hi&quot;">quoted</p>',
  ];
  it.each(refused)('refuses %j', (html, reason) => expect(htmlProblem(html)).toMatch(reason));
  it.each(accepted)('accepts %j', (html) => expect(htmlProblem(html)).toBeNull());

  it('accepts merge fields in text, quoted attributes and after the ? or # of a link, nowhere else', () => {
    const ok = { mergeFields: true };
    expect(htmlProblem('<p title="For {{firstName}}">Hi {{ firstName }}</p>', ok)).toBeNull();
    expect(htmlProblem('<a href="https://example.com/start?email={{email}}#for-{{firstName}}">x</a>', ok)).toBeNull();
    expect(htmlProblem('<a href="{{email}}">x</a>', ok)).toMatch(/merge fields only after its \? or #/);
    expect(htmlProblem('<a href="https://{{email}}/">x</a>', ok)).toMatch(/merge fields only after/);
    expect(htmlProblem('<a title={{firstName}}>x</a>', ok)).toMatch(/unquoted attribute value \(title=\)/);
    expect(htmlProblem('<img src="https://cdn.example.com/{{firstName}}.png">', ok)).toMatch(/image src/);
    expect(htmlProblem('<p style="color:{{firstName}}">x</p>', ok)).toMatch(/style attribute/);
    expect(htmlProblem('<p>{{{firstName}}}</p>', ok)).toMatch(/template expression/);
    // Without mergeFields, a merge field is a template expression like any other.
    expect(htmlProblem('<p>Hi {{firstName}}</p>')).toMatch(/template expression/);
  });
});

describe('templateProblem and styleProblem', () => {
  it('finds template openers as written and after decoding, skipping merge fields only when allowed', () => {
    expect(templateProblem('no braces here')).toBeNull();
    expect(templateProblem('{{x}}')).toMatch(/\{\{ at index 0/);
    expect(templateProblem('{{x}}', { mergeFields: true })).toBeNull();
    // #{ and ${ are openers of their own, also right before a merge field.
    expect(templateProblem('#{{x}}', { mergeFields: true })).toMatch(/#\{ at index 0/);
    expect(templateProblem('&#x7b;&#x7b;x.y}}', { mergeFields: true })).toMatch(/after decoding/);
  });
  it('accepts ordinary inline CSS', () => {
    expect(styleProblem('color: #333; padding: 4px 8px; border-radius: 4px; background: url(https://cdn.example.com/a.png)')).toBeNull();
  });
});

describe('htmlTokens', () => {
  it('follows the tag states: quotes, a value followed directly by an attribute, "/" between attributes, an unclosed tag', () => {
    expect(htmlTokens('a<b title="x>y"class=c/id=d>t</b>')).toEqual([
      { kind: 'text', text: 'a', index: 0 },
      {
        kind: 'start',
        name: 'b',
        attributes: [
          { name: 'title', value: 'x>y', quoted: true },
          { name: 'class', value: 'c/id=d', quoted: false },
        ],
        index: 1,
      },
      { kind: 'text', text: 't', index: 28 },
      { kind: 'end', name: 'b', attributes: [], index: 29 },
    ]);
    expect(htmlTokens('<img/src=x/onerror=y>')[0]).toMatchObject({
      attributes: [{ name: 'src', value: 'x/onerror=y' }],
    });
    expect(htmlTokens('<img src=x /onerror=y>')[0]).toMatchObject({
      attributes: [{ name: 'src' }, { name: 'onerror', value: 'y' }],
    });
    expect(htmlTokens('1 < 2 <3 <p')).toEqual([
      { kind: 'text', text: '1 < 2 <3 ', index: 0 },
      { kind: 'start', name: 'p', attributes: [], index: 9 },
    ]);
    expect(htmlTokens('<TD NoWrap>')[0]).toMatchObject({ name: 'td', attributes: [{ name: 'nowrap', value: null }] });
  });
});

describe('htmlToText', () => {
  it('drops tags, breaks lines at <br> and blocks, lists items, shows link targets and decodes references', () => {
    const html =
      '<h1>Welcome</h1><p>Hi Al&lt;i&gt;ce &amp; co &mdash; <a href="https://example.com/start">start here</a>' +
      ' or <a href="mailto:care@example.com">care@example.com</a>.<br>Thanks</p><ul><li>one</li><li>two</li></ul>';
    expect(htmlToText(html)).toBe(
      'Welcome\n\nHi Al<i>ce & co — start here (https://example.com/start) or care@example.com (care@example.com).\nThanks\n\n- one\n- two',
    );
  });
});
