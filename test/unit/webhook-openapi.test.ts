// The OpenAPI document's `webhooks` section lists every event the API sends, and what the sender
// really POSTs matches what it declares.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { deliveryBody } from '../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { WEBHOOK_EVENTS } from '../../src/platform/events/names';
import { openApiDocument } from '../../src/platform/openapi/document';

const document = openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services')))) as unknown as {
  webhooks: Record<
    string,
    {
      post: {
        operationId: string;
        requestBody: {
          content: {
            'application/json': {
              schema: { properties: Record<string, { properties?: Record<string, unknown>; enum?: string[] }>; required?: string[] };
            };
          };
        };
      };
    }
  >;
};

describe('the webhooks section of the OpenAPI document', () => {
  it('declares every event with an operationId and an ids-only body', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    for (const event of WEBHOOK_EVENTS) {
      const operation = document.webhooks[event]!.post;
      expect(operation.operationId).toMatch(/^webhook[A-Z]/);
      const schema = operation.requestBody.content['application/json'].schema;
      // `test` is true only on a test send (POST /webhooks/{id}/test), so it is optional.
      expect(Object.keys(schema.properties).sort()).toEqual(['createdAt', 'data', 'id', 'test', 'type']);
      expect(schema.required ?? []).not.toContain('test');
      expect(schema.properties.type!.enum).toEqual([event]);
      // Ids only, besides contact.unsubscribed's channels (which channel, never who).
      for (const key of Object.keys(schema.properties.data!.properties ?? {})) {
        if (!(event === 'contact.unsubscribed' && key === 'channels')) expect(key).toMatch(/Id$/);
      }
    }
  });

  it('matches the body the lifecycle events are sent with', () => {
    const orderId = crypto.randomUUID();
    const body = JSON.parse(
      deliveryBody({
        id: crypto.randomUUID(),
        eventType: 'order.shipped',
        createdAt: new Date(),
        payload: { orderId, orderEventId: crypto.randomUUID() },
      }),
    ) as { type: string; data: Record<string, string> };
    const declared = document.webhooks['order.shipped']!.post.requestBody.content['application/json'].schema.properties.data!.properties!;
    expect(body.type).toBe('order.shipped');
    expect(Object.keys(body.data).sort()).toEqual(Object.keys(declared).sort());
  });
});
