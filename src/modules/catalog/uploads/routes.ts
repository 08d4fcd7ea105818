import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { badRequest } from '../../../platform/values/errors';
import { idParam } from '../../../platform/values/ids';
import { imageUploadErrors, isMultipart, multipartImageBody, withDeclaredSizeCheck } from './multipart';
import { globalProductImageResult, imageUploadForm, productImageResult, programImageResult, removeImageBody } from './schemas';
import { checkImage, removeProductImage, setGlobalProductImage, setProductImage, setProgramImage } from './service';

const multipartBody = multipartImageBody(imageUploadForm, 'image');

const uploadProgramImage = withDeclaredSizeCheck(
  defineRoute(
    { auth: 'key', scope: 'write' },
    {
      method: 'post',
      path: '/api/v1/programs/{id}/upload-image',
      operationId: 'uploadProgramImage',
      tags: ['Programs'],
      summary: "Upload the program's cover image (sets heroImageUrl)",
      description:
        'multipart/form-data, required field image: PNG, JPEG, WebP or GIF (type read from the bytes; SVG refused with 400), at most 5 MiB (413). ' +
        "Stores the file and sets the program's heroImageUrl to its url. docs/uploads.md.",
      request: { params: idParam(), body: multipartBody },
      responses: {
        200: jsonContent(successBody(programImageResult), 'Stored; data.imageUrl is the new heroImageUrl'),
        ...imageUploadErrors,
      },
    },
  ),
);

const uploadProductImage = withDeclaredSizeCheck(
  defineRoute(
    { auth: 'key', scope: 'write' },
    {
      method: 'post',
      path: '/api/v1/products/{id}/upload-image',
      operationId: 'uploadProductImage',
      recordedValues: ['removeImage'],
      tags: ['Products and catalog'],
      summary: "Upload or remove the image of one of the clinic's own products",
      description:
        'Either multipart/form-data with the file field image (PNG, JPEG, WebP or GIF by its bytes, at most 5 MiB), which sets imageUrl, ' +
        'or JSON { "removeImage": true }, which clears it. A body that is neither answers 400. Shared platform products answer 404 (use POST /api/v1/global-products/{id}/upload-image). docs/uploads.md.',
      request: {
        params: idParam(),
        body: {
          content: { 'multipart/form-data': { schema: imageUploadForm }, 'application/json': { schema: removeImageBody } },
          required: false,
          description:
            'multipart/form-data with the field image, or JSON { "removeImage": true }. One of the two is needed (400 otherwise).',
        },
      },
      responses: {
        200: jsonContent(successBody(productImageResult), "Stored (or removed); data.imageUrl is the product's imageUrl now"),
        ...imageUploadErrors,
        415: jsonContent(errorBody, 'UNSUPPORTED_MEDIA_TYPE: the body is neither multipart/form-data nor JSON.'),
      },
    },
  ),
);

const uploadGlobalProductImage = withDeclaredSizeCheck(
  defineRoute(
    { auth: 'key', scope: 'write' },
    {
      method: 'post',
      path: '/api/v1/global-products/{id}/upload-image',
      operationId: 'uploadGlobalProductImage',
      tags: ['Products and catalog'],
      summary: "Set this clinic's own image for a shared global product (a brand-scoped override)",
      description:
        "multipart/form-data, required field image (PNG, JPEG, WebP or GIF by its bytes, at most 5 MiB). The image applies to the key's clinic only " +
        '(an override, replaced by the next upload); the shared global product itself is never changed. docs/uploads.md.',
      request: { params: idParam(), body: multipartBody },
      responses: {
        200: jsonContent(successBody(globalProductImageResult), "Stored; data.imageUrl is this clinic's image for the product"),
        ...imageUploadErrors,
      },
    },
  ),
);

export const uploadRoutes = new OpenAPIHono<AppEnv>()
  .openapi(uploadProgramImage, async (c) => {
    const image = await checkImage(c.req.valid('form').image);
    const result = await setProgramImage(handlerContext(c), c.req.valid('param').id, image);
    return c.json(ok(result, 'Program image stored'), 200);
  })
  .openapi(uploadProductImage, async (c) => {
    const ctx = handlerContext(c);
    const { id } = c.req.valid('param');
    const contentType = c.req.header('content-type');
    // The body is optional in the declaration (either content type): a part that did not come is {}.
    if (isMultipart(contentType)) {
      const image = await checkImage((c.req.valid('form') as { image: File }).image);
      return c.json(ok(await setProductImage(ctx, id, image), 'Product image stored'), 200);
    }
    // Only a JSON body reaches here with a validated { removeImage: true }; no body at all is neither.
    if (contentType && (c.req.valid('json') as { removeImage?: true }).removeImage === true) {
      return c.json(ok(await removeProductImage(ctx, id), 'Product image removed'), 200);
    }
    throw badRequest('Invalid body: send multipart/form-data with the file field image, or JSON { "removeImage": true }');
  })
  .openapi(uploadGlobalProductImage, async (c) => {
    const image = await checkImage(c.req.valid('form').image);
    const result = await setGlobalProductImage(handlerContext(c), c.req.valid('param').id, image);
    return c.json(ok(result, 'Global product image override stored'), 200);
  });
