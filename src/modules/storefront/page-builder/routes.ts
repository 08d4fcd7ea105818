import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody, pageQuery } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { idParam } from '../../../platform/values/ids';
import { checkImageField, IMAGE_RULES, imageUploadErrors, multipartImageBody, withDeclaredSizeCheck } from '../../catalog';
import { MAX_CONTENT_BYTES } from './content';
import { getNavigation, saveNavigation } from './navigation';
import {
  createPageBody,
  deletedPage,
  navigation,
  navigationBody,
  page,
  pageImageForm,
  pageImageResult,
  pageSummary,
  updatePageBody,
} from './schemas';
import { createPage, deletePage, getPage, listPages, publishPage, updatePage, uploadPageImage } from './service';

const tags = ['Page builder'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const slugTaken = jsonContent(
  errorBody,
  "CONFLICT: another live page of the clinic has this slug (deleted pages and other clinics' pages do not count)",
);
const contentTooLarge = jsonContent(
  errorBody,
  `PAYLOAD_TOO_LARGE: draftContent is over ${MAX_CONTENT_BYTES} bytes (256 KiB) as JSON, or the body over 1 MB.`,
);

const uploadImage = withDeclaredSizeCheck(
  defineRoute(write, {
    method: 'post',
    path: '/api/v1/page-builder/upload-image',
    operationId: 'uploadPageBuilderImage',
    tags,
    summary: 'Upload an image for use in pages',
    description:
      `multipart/form-data, required file field image: ${IMAGE_RULES} Stores the file (an uploads row with purpose page_image) and answers its url, ` +
      "to be put into a page's draftContent or seoOgImage. No page changes. docs/page-builder.md.",
    request: { body: multipartImageBody(pageImageForm, 'image') },
    responses: {
      201: jsonContent(successBody(pageImageResult), 'Stored; data.imageUrl is where it is served'),
      ...imageUploadErrors,
    },
  }),
);

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/page-builder/pages',
  operationId: 'listPages',
  tags,
  summary: "List the clinic's pages, most recently changed first",
  description:
    'Summaries without the content documents (GET /api/v1/page-builder/pages/{id} has them). Deleted pages are not listed. Paged (data stays an array).',
  request: { query: pageQuery },
  responses: { 200: jsonContent(pagedBody(pageSummary), 'Pages') },
});

const create = defineRoute(write, {
  method: 'post',
  path: '/api/v1/page-builder/pages',
  operationId: 'createPage',
  recordedValues: ['pageType', 'isHomepage'],
  tags,
  summary: 'Create a draft page',
  description: 'isHomepage true makes it the homepage and the previous homepage stops being it, in the same transaction.',
  request: { body: jsonBody(createPageBody) },
  responses: { 201: jsonContent(successBody(page), 'Created, as a draft'), 409: slugTaken, 413: contentTooLarge },
});

const get = defineRoute(read, {
  method: 'get',
  path: '/api/v1/page-builder/pages/{id}',
  operationId: 'getPage',
  tags,
  summary: 'Get a page with its draft, its published content and its versions',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(page), 'The page') },
});

const update = defineRoute(write, {
  method: 'put',
  path: '/api/v1/page-builder/pages/{id}',
  operationId: 'updatePage',
  recordedValues: ['pageType', 'isHomepage'],
  tags,
  summary: 'Save the draft (only the fields sent change; the published content is untouched)',
  request: { params: idParam(), body: jsonBody(updatePageBody) },
  responses: { 200: jsonContent(successBody(page), 'Saved'), 409: slugTaken, 413: contentTooLarge },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/page-builder/pages/{id}',
  operationId: 'deletePage',
  tags,
  summary: 'Delete a page (soft: it answers 404 from then on and its slug becomes free)',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(deletedPage), 'Deleted') },
});

const publish = defineRoute(write, {
  method: 'post',
  path: '/api/v1/page-builder/pages/{id}/publish',
  operationId: 'publishPage',
  tags,
  summary: 'Publish the draft and snapshot it as the next numbered version',
  description:
    'Atomically: publishedContent becomes the draft, status published, publishedVersion + 1, and a version row keeps the content and SEO fields. ' +
    'An empty draft ({}), or one with active content (a draft saved before that rule; docs/page-builder.md), answers 400 and changes nothing.',
  request: { params: idParam() },
  responses: { 200: jsonContent(successBody(page), 'Published') },
});

const getNav = defineRoute(read, {
  method: 'get',
  path: '/api/v1/page-builder/navigation',
  operationId: 'getNavigation',
  tags,
  summary: 'The header and footer menus (both empty when never saved)',
  responses: { 200: jsonContent(successBody(navigation), 'The menus') },
});

const putNav = defineRoute(write, {
  method: 'put',
  path: '/api/v1/page-builder/navigation',
  operationId: 'updateNavigation',
  tags,
  summary: 'Replace the header and footer menus',
  description:
    "Items: { label, url } or { label, pageId } (one of the clinic's live pages; 400 naming the item otherwise), with optional children one level deep. docs/page-builder.md.",
  request: {
    body: jsonBody(navigationBody, {
      headerMenu: [
        { label: 'Programs', url: '/programs', pageId: undefined, children: [{ label: 'About us', url: undefined }] },
        { label: 'Contact', url: '/contact', pageId: undefined, children: undefined },
      ],
      footerMenu: [{ label: 'About us', url: undefined, children: undefined }],
    }),
  },
  responses: { 200: jsonContent(successBody(navigation), 'Saved') },
});

export const pageBuilderRoutes = new OpenAPIHono<AppEnv>()
  .openapi(uploadImage, async (c) => {
    const image = await checkImageField(c.req.valid('form').image, 'image');
    const result = await uploadPageImage(handlerContext(c), image);
    return c.json(ok(result, 'Image stored'), 201);
  })
  .openapi(list, async (c) => {
    const { data, pagination } = await listPages(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(create, async (c) => {
    return c.json(ok(await createPage(handlerContext(c), c.req.valid('json')), 'Page created'), 201);
  })
  .openapi(get, async (c) => {
    return c.json(ok(await getPage(handlerContext(c), c.req.valid('param').id)), 200);
  })
  .openapi(update, async (c) => {
    const saved = await updatePage(handlerContext(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json(ok(saved, 'Draft saved'), 200);
  })
  .openapi(remove, async (c) => {
    return c.json(ok(await deletePage(handlerContext(c), c.req.valid('param').id), 'Page deleted'), 200);
  })
  .openapi(publish, async (c) => {
    const published = await publishPage(handlerContext(c), c.req.valid('param').id);
    return c.json(ok(published, `Published as version ${published.publishedVersion}`), 200);
  })
  .openapi(getNav, async (c) => {
    return c.json(ok(await getNavigation(handlerContext(c))), 200);
  })
  .openapi(putNav, async (c) => {
    return c.json(ok(await saveNavigation(handlerContext(c), c.req.valid('json')), 'Navigation saved'), 200);
  });
