// Markup in stored fields (docs/api-conventions.md, "Markup in stored fields"; issue 26, finding 6):
// every field that a storefront or an email shows, through its real route, with the review's payloads.
// Plain-text fields refuse any markup and template expressions; rich-HTML fields (page content, email
// bodies) refuse what is outside the allow-list. Each refusal is a 400 naming the field, and nothing
// changes (the resource reads the same before and after).
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

/** The review's payloads. */
const SCRIPT = '<script>alert(document.domain)</script>';
const ONERROR = '<img src=x onerror=alert(1)>';
const STYLE_IMPORT = '<style>@import url(https://evil.example/x.css)</style>';
const STYLESHEET = '<link rel=stylesheet href=https://evil.example/x.css>';
const TEMPLATE = '{{constructor.constructor("alert(1)")()}}';
/** Spelt with character references, for a renderer that decodes text again. */
const ENCODED = '&lt;img src=x onerror=alert(1)&gt;';

// biome-ignore lint/suspicious/noTemplateCurlyInString: a template expression is the payload
const PLAIN_PAYLOADS = [SCRIPT, ONERROR, TEMPLATE, ENCODED, `Weight loss ${SCRIPT}`, '${7*7}'];
const HTML_PAYLOADS = [
  SCRIPT,
  ONERROR,
  STYLE_IMPORT,
  STYLESHEET,
  TEMPLATE,
  ENCODED,
  '<p>Hi</p><iframe src="https://evil.example"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<p style="background:url(javascript:alert(1))">x</p>',
  '<svg/onload=alert(1)>',
  '<form action="https://evil.example"><input name="password"></form>',
];

interface World {
  key: string;
  treatmentId: string;
  pageId: string;
  sequenceId: string;
}

async function api(key: string, path: string, body?: unknown, method?: string) {
  const res = await t.request(path, { key, body, method });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await res.json()).data;
}

async function world(): Promise<World> {
  const { key } = await makeTenant(t.db);
  const treatment = await api(key, '/api/v1/treatments', { name: 'Medical Weight Loss' });
  const page = await api(key, '/api/v1/page-builder/pages', { slug: 'about', draftContent: { sections: [] } });
  const sequence = await api(key, '/api/v1/sequences', { name: 'Welcome', triggerEvent: 'manual' });
  return { key, treatmentId: treatment.id, pageId: page.id, sequenceId: sequence.id };
}

interface Field {
  /** The field as the 400 names it. */
  field: string;
  method: 'POST' | 'PUT';
  path: (w: World) => string;
  body: (value: string) => unknown;
  /** What must read the same after a refusal (GET). */
  unchanged: (w: World) => string;
}

const templateBody = { name: 'Mail', type: 'email', subject: 'Hello', body: '<p>Hi</p>' };
const emailStep = { type: 'email', useCustomText: true, customSubject: 'Hello', customText: '<p>Hi</p>' };
const smsStep = { type: 'sms', useCustomText: true, customText: 'Hi' };

const PLAIN_FIELDS: Field[] = [
  {
    field: 'body.name',
    method: 'POST',
    path: () => '/api/v1/treatments',
    body: (v) => ({ name: v }),
    unchanged: () => '/api/v1/treatments',
  },
  {
    field: 'body.description',
    method: 'POST',
    path: () => '/api/v1/treatments',
    body: (v) => ({ name: 'A', description: v }),
    unchanged: () => '/api/v1/treatments',
  },
  {
    field: 'body.name',
    method: 'PUT',
    path: (w) => `/api/v1/treatments/${w.treatmentId}`,
    body: (v) => ({ name: v }),
    unchanged: (w) => `/api/v1/treatments/${w.treatmentId}`,
  },
  {
    field: 'body.description',
    method: 'PUT',
    path: (w) => `/api/v1/treatments/${w.treatmentId}`,
    body: (v) => ({ description: v }),
    unchanged: (w) => `/api/v1/treatments/${w.treatmentId}`,
  },
  {
    field: 'body.seoTitle',
    method: 'POST',
    path: () => '/api/v1/page-builder/pages',
    body: (v) => ({ slug: 'seo', seoTitle: v }),
    unchanged: () => '/api/v1/page-builder/pages',
  },
  {
    field: 'body.seoDescription',
    method: 'POST',
    path: () => '/api/v1/page-builder/pages',
    body: (v) => ({ slug: 'seo', seoDescription: v }),
    unchanged: () => '/api/v1/page-builder/pages',
  },
  {
    field: 'body.seoTitle',
    method: 'PUT',
    path: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
    body: (v) => ({ seoTitle: v }),
    unchanged: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
  },
  {
    field: 'body.seoDescription',
    method: 'PUT',
    path: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
    body: (v) => ({ seoDescription: v }),
    unchanged: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
  },
  {
    field: 'body.headerMenu.0.label',
    method: 'PUT',
    path: () => '/api/v1/page-builder/navigation',
    body: (v) => ({ headerMenu: [{ label: v, url: '/about' }], footerMenu: [] }),
    unchanged: () => '/api/v1/page-builder/navigation',
  },
  ...(['heroTitle', 'heroSubtitle', 'heroPrimaryButtonText', 'footerText'] as const).map(
    (name): Field => ({
      field: `body.${name}`,
      method: 'POST',
      path: () => '/api/v1/custom-website',
      body: (v) => ({ [name]: v }),
      unchanged: () => '/api/v1/custom-website',
    }),
  ),
  ...(['name', 'subject', 'description', 'category'] as const).map(
    (name): Field => ({
      field: `body.${name}`,
      method: 'POST',
      path: () => '/api/v1/message-templates',
      body: (v) => ({ ...templateBody, [name]: v }),
      unchanged: () => '/api/v1/message-templates',
    }),
  ),
  {
    field: 'body.body',
    method: 'POST',
    path: () => '/api/v1/message-templates',
    body: (v) => ({ name: 'Text', type: 'sms', body: v }),
    unchanged: () => '/api/v1/message-templates',
  },
  ...(['name', 'description'] as const).map(
    (name): Field => ({
      field: `body.${name}`,
      method: 'POST',
      path: () => '/api/v1/sequences',
      body: (v) => ({ name: 'Welcome', triggerEvent: 'manual', [name]: v }),
      unchanged: () => '/api/v1/sequences',
    }),
  ),
  {
    field: 'body.steps.0.customSubject',
    method: 'PUT',
    path: (w) => `/api/v1/sequences/${w.sequenceId}/steps`,
    body: (v) => ({ steps: [{ ...emailStep, customSubject: v }] }),
    unchanged: (w) => `/api/v1/sequences/${w.sequenceId}`,
  },
  {
    field: 'body.steps.0.customText',
    method: 'PUT',
    path: (w) => `/api/v1/sequences/${w.sequenceId}/steps`,
    body: (v) => ({ steps: [{ ...smsStep, customText: v }] }),
    unchanged: (w) => `/api/v1/sequences/${w.sequenceId}`,
  },
];

const HTML_FIELDS: Field[] = [
  {
    field: 'body.draftContent.sections.0.html',
    method: 'POST',
    path: () => '/api/v1/page-builder/pages',
    body: (v) => ({ slug: 'rich', draftContent: { sections: [{ html: v }] } }),
    unchanged: () => '/api/v1/page-builder/pages',
  },
  {
    field: 'body.draftContent.sections.0.html',
    method: 'PUT',
    path: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
    body: (v) => ({ draftContent: { sections: [{ html: v }] } }),
    unchanged: (w) => `/api/v1/page-builder/pages/${w.pageId}`,
  },
  {
    field: 'body.body',
    method: 'POST',
    path: () => '/api/v1/message-templates',
    body: (v) => ({ ...templateBody, body: v }),
    unchanged: () => '/api/v1/message-templates',
  },
  {
    field: 'body.steps.0.customText',
    method: 'PUT',
    path: (w) => `/api/v1/sequences/${w.sequenceId}/steps`,
    body: (v) => ({ steps: [{ ...emailStep, customText: v }] }),
    unchanged: (w) => `/api/v1/sequences/${w.sequenceId}`,
  },
];

async function expectRefused(w: World, f: Field, value: string) {
  const before = await api(w.key, f.unchanged(w));
  const res = await t.request(f.path(w), { key: w.key, method: f.method, body: f.body(value) });
  const label = `${f.method} ${f.path(w)} ${f.field} = ${JSON.stringify(value)}`;
  expect(res.status, label).toBe(400);
  const error = (await res.json()) as { code: string; errors: { field: string; message: string }[] };
  expect(error.code, label).toBe('VALIDATION_ERROR');
  // Only this field (a long payload may also be over the field's length limit: a second issue for it).
  expect(new Set(error.errors.map((e) => e.field)), label).toEqual(new Set([f.field]));
  expect(
    error.errors.some((e) => /^must (not|be plain text|have an)/.test(e.message)),
    label,
  ).toBe(true);
  expect(await api(w.key, f.unchanged(w)), label).toEqual(before);
}

describe('plain-text fields refuse markup and template expressions', () => {
  it.each(
    PLAIN_FIELDS.map((f) => [`${f.method} ${f.path({ treatmentId: '{id}', pageId: '{id}', sequenceId: '{id}' } as World)} ${f.field}`, f]),
  )('%s', async (_name, f) => {
    const w = await world();
    for (const value of PLAIN_PAYLOADS) await expectRefused(w, f as Field, value);
  });

  it('refuses a tag but accepts ordinary text with <, & and quotes, and merge fields where a field declares them', async () => {
    const { key } = await makeTenant(t.db);
    expect((await t.request('/api/v1/treatments', { key, body: { name: 'Weight <b>loss</b>' } })).status).toBe(400);
    const treatment = await api(key, '/api/v1/treatments', {
      name: 'Men\'s health: ages 18+ & "<3" our patients',
      description: 'Dose < 5 mg; R&D; a <= b',
    });
    expect(treatment).toMatchObject({ name: 'Men\'s health: ages 18+ & "<3" our patients', description: 'Dose < 5 mg; R&D; a <= b' });
    const sms = await api(key, '/api/v1/message-templates', {
      name: 'Text',
      type: 'sms',
      body: 'Hi {{ firstName }}, <3 from {{clinicName}}',
    });
    expect(sms.mergeFields).toEqual(['firstName', 'clinicName']);
  });
});

describe('rich-HTML fields refuse what is outside the allow-list', () => {
  it.each(HTML_FIELDS.map((f) => [`${f.method} ${f.path({ pageId: '{id}', sequenceId: '{id}' } as World)} ${f.field}`, f]))(
    '%s',
    async (_name, f) => {
      const w = await world();
      for (const value of HTML_PAYLOADS) await expectRefused(w, f as Field, value);
    },
  );

  it('PUT /message-templates/{id} refuses them in an email body, and an sms body turned email is checked as HTML', async () => {
    const { key } = await makeTenant(t.db);
    const template = await api(key, '/api/v1/message-templates', templateBody);
    const field: Field = {
      field: 'body.body',
      method: 'PUT',
      path: () => `/api/v1/message-templates/${template.id}`,
      body: (v) => ({ body: v }),
      unchanged: () => `/api/v1/message-templates/${template.id}`,
    };
    const w = { key } as World;
    for (const value of HTML_PAYLOADS) await expectRefused(w, field, value);
    const sms = await api(key, '/api/v1/message-templates', { name: 'Text', type: 'sms', body: 'a <3 b' });
    await expectRefused(
      w,
      {
        ...field,
        path: () => `/api/v1/message-templates/${sms.id}`,
        body: (v) => ({ type: 'email', subject: 'Hi', body: v }),
        unchanged: () => `/api/v1/message-templates/${sms.id}`,
      },
      '<p>{{firstName}}</p><script>x</script>',
    );
  });

  it('accepts the documented markup (text elements, tables, https/site/mailto links, images, inline styles, merge fields in text and in a query) and nothing beside it', async () => {
    const { key } = await makeTenant(t.db);
    const withStyle = { ...templateBody, body: '<p>Hi</p><style>p{color:red}</style>' };
    expect((await t.request('/api/v1/message-templates', { key, body: withStyle })).status).toBe(400);
    const body =
      '<h1 style="color:#2F6FED">Hi {{firstName}}</h1><p>Welcome to <strong>{{clinicName}}</strong>. ' +
      '<a href="https://example.com/start?email={{email}}" target="_blank" rel="noopener">Start</a> or ' +
      '<a href="mailto:care@example.com">write to us</a>.</p>' +
      '<table width="100%" cellpadding="0"><tr><td align="center" style="background:url(https://cdn.example.com/bg.png)">' +
      '<img src="/uploads/clinics/x/template_image/a.png" alt="Logo" width="120"></td></tr></table>';
    const template = await api(key, '/api/v1/message-templates', { ...templateBody, body });
    expect(template.body).toBe(body);
    const page = await api(key, '/api/v1/page-builder/pages', {
      slug: 'welcome',
      draftContent: { sections: [{ html: '<p>Read <a href="/about#team">about us</a>.</p><ul><li>one</li></ul>' }] },
    });
    expect(page.draftContent.sections[0].html).toContain('<a href="/about#team">');
  });

  it('refuses merge fields where an escaped value could still change what the markup does', async () => {
    const { key } = await makeTenant(t.db);
    const refused = [
      ['<a href="{{email}}">x</a>', /href/], // the value would be the whole URL (javascript:...)
      ['<a title={{firstName}}>x</a>', /unquoted attribute value/], // escaping does not stop a space ending the value
      ['<p style="color:{{firstName}}">x</p>', /style attribute/],
      ['<img src="https://cdn.example.com/{{firstName}}.png">', /image src/],
      ['<p>{{{firstName}}}</p>', /template expression/], // Handlebars' raw output
    ] as const;
    for (const [body, message] of refused) {
      const res = await t.request('/api/v1/message-templates', { key, body: { ...templateBody, body } });
      expect(res.status, body).toBe(400);
      expect((await res.json()).errors, body).toEqual([{ field: 'body.body', message: expect.stringMatching(message) }]);
    }
  });
});
