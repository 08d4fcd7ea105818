// The served OpenAPI document is generator-friendly: no `default` in a request body (openapi-typescript
// would make such a field required), the default said in the description instead; closed sets are enums.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { WEBHOOK_EVENTS } from '../../src/platform/events/names';
import { openApiDocument, withoutRequestDefaults } from '../../src/platform/openapi/document';

type Node = Record<string, unknown>;
const document = openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services')))) as unknown as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Node }> } }>>;
  components: { schemas: Record<string, Node> };
};

/** Every schema node reachable from `schema`, following $refs, not entering values (examples, enums). */
function nodesOf(schema: Node, seen = new Set<Node>()): Node[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const out = [schema];
  if (typeof schema.$ref === 'string') out.push(...nodesOf(document.components.schemas[schema.$ref.split('/').pop()!]!, seen));
  for (const [keyword, value] of Object.entries(schema)) {
    if (['example', 'examples', 'enum', 'const'].includes(keyword) || !value || typeof value !== 'object') continue;
    const children = keyword === 'properties' ? Object.values(value) : Array.isArray(value) ? value : [value];
    for (const child of children) if (child && typeof child === 'object') out.push(...nodesOf(child as Node, seen));
  }
  return out;
}

describe('request bodies in the OpenAPI document', () => {
  it('carry no default anywhere, and say the default in the description', () => {
    let bodies = 0;
    let described = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const media of Object.values(operation.requestBody?.content ?? {})) {
          bodies++;
          for (const node of nodesOf(media.schema)) {
            expect('default' in node, `${method.toUpperCase()} ${path}`).toBe(false);
            if (typeof node.description === 'string' && node.description.includes('Default: ')) described++;
          }
        }
      }
    }
    expect(bodies).toBeGreaterThan(80);
    expect(described).toBeGreaterThan(20);
    const coupon = document.components.schemas.CreateCouponRequest!.properties as Record<string, Node>;
    expect(coupon.isActive!.description).toMatch(/Default: true\.$/);
    expect(document.components.schemas.CreateCouponRequest!.required).toEqual(['code', 'discountType', 'discountValue']);
  });

  it('leaves a field named "default" and example values alone', () => {
    const doc = {
      paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } } } } },
      components: {
        schemas: {
          X: {
            type: 'object',
            properties: { default: { type: 'string', default: 'a' }, other: { type: 'integer', default: 3, description: 'Count.' } },
            example: { default: 'kept' },
          },
        },
      },
    };
    withoutRequestDefaults(doc as never);
    const x = doc.components.schemas.X as unknown as { properties: Record<string, Node>; example: Node };
    expect(x.properties.default).toEqual({ type: 'string', description: 'Default: "a".' });
    expect(x.properties.other).toEqual({ type: 'integer', description: 'Count. Default: 3.' });
    expect(x.example).toEqual({ default: 'kept' });
  });

  it('declares webhook event names as an enumeration', () => {
    const events = (document.components.schemas.CreateWebhookRequest!.properties as Record<string, { items: { enum: string[] } }>).events!;
    expect(events.items.enum).toEqual([...WEBHOOK_EVENTS]);
  });
});
