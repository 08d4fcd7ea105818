// Every operation of the served OpenAPI document shows a request example (when it takes a body), a
// success example and an example of each error it declares, at the media level; each validates against
// its own schema with the strict-response rules (no undeclared field anywhere), request bodies also
// against the route's own zod schema (the refinements a JSON schema cannot say), and each error
// example carries the code its response declares.
import type { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { openApiDocument } from '../../src/platform/openapi/document';
import { codesIn, compose, uuidFor } from '../../src/platform/openapi/examples';
import { schemaProblems } from '../helpers/strict-response';

type Schema = Record<string, unknown>;
type Media = { schema: Schema; example?: unknown; examples?: unknown };
type Operation = {
  operationId: string;
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
};

const app = createApp(() => Promise.reject(new Error('the document needs no services')));
const document = openApiDocument(app) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, operation })),
);

/** The zod request body schemas the server validates with, by "METHOD path". */
const zodBodies = new Map<string, z.ZodType>();
for (const definition of app.openAPIRegistry.definitions) {
  if (definition.type !== 'route') continue;
  const schema = (definition.route.request?.body?.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']
    ?.schema;
  if (schema && typeof (schema as z.ZodType).safeParse === 'function') {
    zodBodies.set(`${definition.route.method.toUpperCase()} ${definition.route.path}`, schema as z.ZodType);
  }
}

const problemsOf = (media: Media, where: string): string[] => {
  if (media.example === undefined) return [`${where}: no example`];
  return schemaProblems(document, media.schema, media.example).map((p) => `${where}: ${p}`);
};

describe('examples in the OpenAPI document', () => {
  it('every request body has a media-level example that its JSON schema and the route’s zod schema accept', () => {
    const problems: string[] = [];
    let bodies = 0;
    for (const { name, operation } of operations) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        bodies++;
        problems.push(...problemsOf(media, `${name} request ${type}`));
        const zod = type === 'application/json' ? zodBodies.get(name) : undefined;
        if (type === 'application/json') expect(zod, `${name}: its zod body schema`).toBeDefined();
        const parsed = zod?.safeParse(media.example);
        if (parsed && !parsed.success) {
          problems.push(...parsed.error.issues.map((i) => `${name} request (zod): ${i.path.join('.')}: ${i.message}`));
        }
      }
    }
    expect(bodies).toBeGreaterThan(80);
    expect(problems).toEqual([]);
  });

  it('every webhook event body has an example of that event', () => {
    const problems: string[] = [];
    for (const [event, item] of Object.entries(document.webhooks)) {
      const media = item.post!.requestBody!.content['application/json']!;
      problems.push(...problemsOf(media, event));
      if ((media.example as { type?: string } | undefined)?.type !== event)
        problems.push(`${event}: example of ${JSON.stringify(media.example)}`);
    }
    expect(Object.keys(document.webhooks).length).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('every success response has a media-level example that its schema accepts', () => {
    const problems: string[] = [];
    let count = 0;
    for (const { name, operation } of operations) {
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(successes.length, name).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (!type.includes('json')) continue; // images: binary
          count++;
          problems.push(...problemsOf(media, `${name} ${status}`));
        }
      }
    }
    expect(count).toBeGreaterThan(220); // all but the logo download (an image)
    expect(problems).toEqual([]);
  });

  it('every error response has an example in the error envelope, with the code its description names', () => {
    const problems: string[] = [];
    const defaults: Record<string, string[]> = {
      400: ['VALIDATION_ERROR'],
      401: ['UNAUTHORIZED'],
      403: [
        'KEY_KIND_NOT_ALLOWED',
        'SANDBOX_NOT_ALLOWED',
        'INSUFFICIENT_SCOPE',
        'AFFILIATES_TIER_REQUIRED',
        'CRM_TIER_REQUIRED',
        'FORBIDDEN',
      ],
      404: ['NOT_FOUND'],
      429: ['RATE_LIMIT_EXCEEDED'],
    };
    const seen = new Set<string>();
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content?.['application/json'];
        if (!media) {
          problems.push(`${name} ${status}: no JSON error body`);
          continue;
        }
        problems.push(...problemsOf(media, `${name} ${status}`));
        const example = media.example as {
          success?: unknown;
          code?: string;
          message?: string;
          errors?: unknown[];
          retryAfterSeconds?: number;
        };
        const allowed = [...codesIn(response.description), ...(defaults[status] ?? [])];
        if (example?.success !== false) problems.push(`${name} ${status}: success is not false`);
        if (!example?.code || !allowed.includes(example.code)) {
          problems.push(`${name} ${status}: code ${example?.code} is not one of ${allowed.join(', ')}`);
        }
        if (!example?.message) problems.push(`${name} ${status}: no message`);
        if (example?.code === 'VALIDATION_ERROR' && !example.errors?.length)
          problems.push(`${name} ${status}: VALIDATION_ERROR without errors`);
        if (status === '429' && example?.retryAfterSeconds === undefined) problems.push(`${name} 429: no retryAfterSeconds`);
        seen.add(`${status} ${example?.code}`);
      }
    }
    expect(problems).toEqual([]);
    // The common answers are all shown somewhere.
    for (const expected of [
      '400 VALIDATION_ERROR',
      '401 UNAUTHORIZED',
      '403 INSUFFICIENT_SCOPE',
      '403 KEY_KIND_NOT_ALLOWED',
      '403 CRM_TIER_REQUIRED',
      '404 NOT_FOUND',
      '409 IDEMPOTENCY_KEY_IN_USE',
      '413 PAYLOAD_TOO_LARGE',
      '415 UNSUPPORTED_MEDIA_TYPE',
      '422 IDEMPOTENCY_KEY_REUSED',
      '429 RATE_LIMIT_EXCEEDED',
      '503 SERVICE_UNAVAILABLE',
    ]) {
      expect([...seen], expected).toContain(expected);
    }
  });

  it('shows the API’s own formats: the envelope, ids per kind of record, pagination', () => {
    const get = (path: string, method = 'get', status = '200') =>
      document.paths[path]![method]!.responses[status]!.content!['application/json']!.example as Record<string, unknown>;
    const order = get('/api/v1/orders/{id}') as { success: boolean; message: string; data: { id: string } };
    expect(order.success).toBe(true);
    expect(order.message).toEqual(expect.any(String));
    expect(order.data.id).toBe(uuidFor('order'));
    const parameter = document.paths['/api/v1/orders/{id}']!.get!.parameters!.find((p) => p.name === 'id')!;
    expect(parameter.schema.example).toBe(order.data.id);
    const list = get('/api/v1/orders') as { data: { id: string }[]; pagination: unknown };
    expect(list.data[0]!.id).toBe(uuidFor('order'));
    expect(list.pagination).toEqual({ page: 1, limit: 25, total: 1, totalPages: 1 });
    const notFound = get('/api/v1/orders/{id}', 'get', '404');
    expect(notFound).toEqual({ success: false, code: 'NOT_FOUND', message: 'Order not found', requestId: expect.any(String) });
  });

  it('composes from a schema: a route’s own partial example wins, undefined leaves a field out', () => {
    const context = { schemas: {}, owner: 'refund', seen: 0 };
    const schema = {
      type: 'object',
      required: ['id', 'amount'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        amount: { type: 'number' },
        amountCents: { type: 'integer' },
        status: { type: 'string', enum: ['pending', 'succeeded'] },
        note: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
      },
    };
    expect(compose(schema, { status: 'succeeded', note: undefined }, 'data', context, 0, false)).toEqual({
      id: uuidFor('refund'),
      amount: 179,
      amountCents: 17_900,
      status: 'succeeded',
      createdAt: '2026-03-02T14:05:09.000Z',
    });
    expect(compose(schema, undefined, 'data', context, 0, true)).toEqual({ id: uuidFor('refund'), amount: 179 });
  });
});
