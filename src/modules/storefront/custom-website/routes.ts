import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { SERVED_UPLOAD_CSP, SERVED_UPLOAD_HEADERS } from '../../../platform/http/security-headers';
import { notFound } from '../../../platform/values/errors';
import { checkImageField, IMAGE_RULES, imageUploadErrors, multipartImageBody, withDeclaredSizeCheck } from '../../catalog';
import {
  customWebsite,
  heroForm,
  heroResult,
  logoForm,
  logoResult,
  SOCIAL_NETWORK_NAMES,
  saveWebsiteBody,
  toggleActiveBody,
} from './schemas';
import { findLogo, getWebsite, resetFooter, resetSocialMedia, saveWebsite, setWebsiteActive, uploadHero, uploadLogo } from './service';

const tags = ['Custom website'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const websiteResponse = (description: string) => ({ 200: jsonContent(successBody(customWebsite), description) });

/** Browsers and clients may keep the logo five minutes, then revalidate with If-None-Match (304 while unchanged). */
export const LOGO_CACHE_CONTROL = 'private, max-age=300';

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/custom-website',
  operationId: 'getCustomWebsite',
  tags,
  summary: "The clinic's website settings (the defaults when never saved)",
  responses: websiteResponse('The settings'),
});

const save = defineRoute(write, {
  method: 'post',
  path: '/api/v1/custom-website',
  operationId: 'saveCustomWebsite',
  recordedValues: ['isActive', 'primaryColor', 'footerColor'],
  tags,
  summary: 'Save the website settings (creates them on the first save; afterwards only the fields sent change)',
  description: `Colors are hex (#RGB or #RRGGBB); socialMediaLinks maps a network (${SOCIAL_NETWORK_NAMES.join(', ')}) to an https URL on that network. docs/custom-website.md.`,
  request: { body: jsonBody(saveWebsiteBody) },
  responses: websiteResponse('Saved'),
});

const toggle = defineRoute(write, {
  method: 'post',
  path: '/api/v1/custom-website/toggle-active',
  operationId: 'toggleCustomWebsiteActive',
  recordedValues: ['isActive'],
  tags,
  summary: 'Take the website live or offline (changes isActive only)',
  request: { body: jsonBody(toggleActiveBody) },
  responses: websiteResponse('Changed'),
});

const resetFooterRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/custom-website/reset-footer',
  operationId: 'resetCustomWebsiteFooter',
  tags,
  summary: 'Put footerColor and footerText back to their defaults (nothing else changes)',
  responses: websiteResponse('Reset'),
});

const resetSocialRoute = defineRoute(write, {
  method: 'post',
  path: '/api/v1/custom-website/reset-social-media',
  operationId: 'resetCustomWebsiteSocialMedia',
  tags,
  summary: 'Remove every social media link (nothing else changes)',
  responses: websiteResponse('Reset'),
});

const uploadLogoRoute = withDeclaredSizeCheck(
  defineRoute(write, {
    method: 'post',
    path: '/api/v1/custom-website/upload-logo',
    operationId: 'uploadCustomWebsiteLogo',
    tags,
    summary: "Upload the website's logo",
    description: `multipart/form-data, required file field logo: ${IMAGE_RULES} Replaces the logo (logoUrl, logo-proxy). docs/custom-website.md.`,
    request: { body: multipartImageBody(logoForm, 'logo') },
    responses: { 200: jsonContent(successBody(logoResult), 'Stored; it is the logo now'), ...imageUploadErrors },
  }),
);

const uploadHeroRoute = withDeclaredSizeCheck(
  defineRoute(write, {
    method: 'post',
    path: '/api/v1/custom-website/upload-hero',
    operationId: 'uploadCustomWebsiteHero',
    tags,
    summary: "Upload the website's hero image",
    description: `multipart/form-data, required file field heroImage: ${IMAGE_RULES} Replaces heroImageUrl. docs/custom-website.md.`,
    request: { body: multipartImageBody(heroForm, 'heroImage') },
    responses: { 200: jsonContent(successBody(heroResult), 'Stored; it is the hero image now'), ...imageUploadErrors },
  }),
);

const binary = z.string().openapi({ type: 'string', format: 'binary' });
const cacheHeaders = {
  ETag: { description: 'Names this logo (the upload); send it back in If-None-Match.', schema: { type: 'string' as const } },
  'Cache-Control': { description: LOGO_CACHE_CONTROL, schema: { type: 'string' as const } },
  'Last-Modified': { description: 'When this logo was uploaded.', schema: { type: 'string' as const } },
  'Content-Security-Policy': {
    description: `${SERVED_UPLOAD_CSP}: the bytes can never run as a document (a polyglot image stays an image).`,
    schema: { type: 'string' as const },
  },
};

const logoProxy = defineRoute(read, {
  method: 'get',
  path: '/api/v1/custom-website/logo-proxy',
  operationId: 'getCustomWebsiteLogo',
  tags,
  summary: "Stream the website's logo bytes",
  description:
    'The stored image itself, with its Content-Type (image/png, image/jpeg, image/webp or image/gif), Content-Length, an ETag and Cache-Control. ' +
    'If-None-Match with the current ETag answers 304 without a body. 404 when the website has no logo. docs/custom-website.md.',
  request: {
    headers: z.object({
      'if-none-match': z
        .string()
        .max(1024)
        .optional()
        .openapi({ description: 'An ETag from an earlier answer (or a list of them, or *).' }),
    }),
  },
  responses: {
    200: {
      description: 'The logo bytes',
      headers: { ...cacheHeaders, 'Content-Length': { description: 'Size in bytes.', schema: { type: 'integer' as const } } },
      content: {
        'image/png': { schema: binary },
        'image/jpeg': { schema: binary },
        'image/webp': { schema: binary },
        'image/gif': { schema: binary },
      },
    },
    304: { description: "Not modified: the ETag sent is the current logo's", headers: cacheHeaders },
    404: jsonContent(errorBody, 'The website has no logo (or its file is missing from storage)'),
  },
});

/** Whether an If-None-Match header value matches `etag` (weak comparison, as RFC 9110 says for If-None-Match). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

export const customWebsiteRoutes = new OpenAPIHono<AppEnv>()
  .openapi(get, async (c) => {
    return c.json(ok(await getWebsite(handlerContext(c))), 200);
  })
  .openapi(save, async (c) => {
    return c.json(ok(await saveWebsite(handlerContext(c), c.req.valid('json')), 'Website saved'), 200);
  })
  .openapi(toggle, async (c) => {
    const { isActive } = c.req.valid('json');
    const website = await setWebsiteActive(handlerContext(c), isActive);
    return c.json(ok(website, isActive ? 'Website is live' : 'Website is offline'), 200);
  })
  .openapi(resetFooterRoute, async (c) => {
    return c.json(ok(await resetFooter(handlerContext(c)), 'Footer reset'), 200);
  })
  .openapi(resetSocialRoute, async (c) => {
    return c.json(ok(await resetSocialMedia(handlerContext(c)), 'Social media links removed'), 200);
  })
  .openapi(uploadLogoRoute, async (c) => {
    const image = await checkImageField(c.req.valid('form').logo, 'logo');
    return c.json(ok(await uploadLogo(handlerContext(c), image), 'Logo stored'), 200);
  })
  .openapi(uploadHeroRoute, async (c) => {
    const image = await checkImageField(c.req.valid('form').heroImage, 'heroImage');
    return c.json(ok(await uploadHero(handlerContext(c), image), 'Hero image stored'), 200);
  })
  .openapi(logoProxy, async (c) => {
    const logo = await findLogo(handlerContext(c));
    const headers: Record<string, string> = {
      ...SERVED_UPLOAD_HEADERS,
      ETag: logo.etag,
      'Cache-Control': LOGO_CACHE_CONTROL,
      'Last-Modified': logo.lastModified.toUTCString(),
    };
    if (etagMatches(c.req.valid('header')['if-none-match'], logo.etag)) return c.body(null, 304, headers);
    const bytes = await logo.read();
    if (!bytes) throw notFound('Logo');
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      ...headers,
      'Content-Type': logo.contentType,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': 'inline',
    });
  });
