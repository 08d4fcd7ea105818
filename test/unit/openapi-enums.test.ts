// Closed sets are enumerations in the OpenAPI document (docs/api-conventions.md, "Enumerations"): walks
// every schema (components, parameters, request and response bodies) and fails on a string field named
// like a closed set (status, type, kind, role, state, mode, provider, ...) that has no enum, unless it is
// listed below as an open set, with the reason. A new status field declared as z.string() fails here.
import { describe, expect, it } from 'vitest';
import { FULFILLMENT_TYPES, LEDGER_ENTRY_TYPES, ORDER_STATUSES, PAYOUT_STATUSES } from '../../drizzle/schema';
import { createApp } from '../../src/app';
import { WEBHOOK_EVENTS } from '../../src/platform/events/names';
import { openApiDocument } from '../../src/platform/openapi/document';

const document = openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services'))));

const CLOSED_SET_NAME =
  /^(status|kind|type|role|state|mode|provider|source|direction|scope|action|priority|purpose|channel|granularity|frequency)$|(Status|Type|Kind|Role|State|Mode)$/;

/** Strings named like a closed set that are open sets, or not sets at all. */
const OPEN: Record<string, string> = {
  'listEvents?type': 'one or more event names, comma-separated; each is checked against the events (400 naming the unknown ones)',
  'listEvents?type[]': 'the same names, repeated',
  'AuditEvent.action': "named from the write operation (createCoupon: coupon.created) or patient_data.read; grows with the API's writes",
  'AuditEvent.targetType': "the resource of the write operation or of the patient-data read; grows with the API's resources",
  'listAuditEvents?action': 'the same names as AuditEvent.action (an unknown one matches no event)',
  'listAuditEvents?targetType': 'the same names as AuditEvent.targetType (an unknown one matches no event)',
  'AffiliateTaxDocument.documentType': 'the IRS form name as filed (w9, w8ben, ...); no API writes it',
  'CrmOAuthStart.state': 'an opaque signed OAuth state, not a set',
  'DashboardActivityItem.status': "the payment's, refund's or payout's own status, by the item's type",
  'DashboardActivityItem.type': 'an event name of the source (order.created, payment.failed, refund.<status>, ...)',
  'Notification.type': 'notification kinds grow with the features that notify',
  'OrderEvents.events[].eventType': 'order event types grow with the lifecycle (order.*, lab.*, appointment.*)',
  'ProgramDraft.provider': 'the AI provider that drafted it (workers-ai, a stand-in in development)',
};
const US_STATE = /(^|\.)(state|address\.state|shippingAddress\.state|byState\[\]\.state)$/;
const US_STATE_FIELDS_NOTE = 'a two-letter US state code, checked case-insensitively on input (stateSchema), not an enum';

type Schema = Record<string, unknown>;

function stringsWithoutEnum(): string[] {
  const found = new Set<string>();
  const visit = (schema: unknown, where: string): void => {
    if (!schema || typeof schema !== 'object') return;
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return; // components are walked by name
    const types = ([] as unknown[]).concat(s.type);
    const name = where.split(/[.?:]/).pop()!.replace(/\[\]$/, '');
    if (types.includes('string') && !s.enum && !('const' in s) && !s.format && !s.pattern && CLOSED_SET_NAME.test(name)) found.add(where);
    for (const [keyword, value] of Object.entries(s)) {
      if (keyword === 'properties') for (const [p, v] of Object.entries(value as Schema)) visit(v, `${where}.${p}`);
      else if (keyword === 'items') visit(value, `${where}[]`);
      else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') for (const v of value as unknown[]) visit(v, where);
      else if (keyword === 'additionalProperties') visit(value, `${where}{}`);
    }
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) visit(schema, name);
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Schema>)) {
      const op = operation as { operationId?: string; parameters?: Schema[]; requestBody?: Schema; responses?: Record<string, Schema> };
      for (const parameter of op.parameters ?? []) visit(parameter.schema, `${op.operationId}?${parameter.name}`);
      const bodies = [
        ...Object.values((op.requestBody?.content ?? {}) as Record<string, Schema>).map((m) => [`${op.operationId}:body`, m] as const),
        ...Object.entries(op.responses ?? {}).flatMap(([status, r]) =>
          Object.values((r.content ?? {}) as Record<string, Schema>).map((m) => [`${op.operationId}:${status}`, m] as const),
        ),
      ];
      for (const [where, media] of bodies) visit(media.schema, where);
    }
  }
  return [...found].sort();
}

const enumOf = (schema: unknown) => (schema as Schema).enum;
const component = (name: string) => document.components?.schemas?.[name] as Schema & { properties: Record<string, Schema> };

describe('enumerations in the OpenAPI document', () => {
  it('every string named like a closed set has an enum, or is a listed open set', () => {
    const missing = stringsWithoutEnum().filter((where) => !(where in OPEN) && !US_STATE.test(where));
    expect(
      missing,
      `closed sets without an enum (use z.enum with the service's constant, or list an open set in OPEN): ${US_STATE_FIELDS_NOTE}`,
    ).toEqual([]);
  });

  it('the open-set list names only fields that exist and still have no enum', () => {
    const now = new Set(stringsWithoutEnum());
    expect(Object.keys(OPEN).filter((where) => !now.has(where))).toEqual([]);
  });

  it('declares the constants the code uses', () => {
    expect(enumOf(component('OrderStatus'))).toEqual([...ORDER_STATUSES]);
    expect(component('Order').properties.status).toEqual({ $ref: '#/components/schemas/OrderStatus' });
    expect(enumOf(component('Order').properties.fulfillmentType)).toEqual([...FULFILLMENT_TYPES]);
    expect(enumOf(component('PayoutRow').properties.status)).toEqual([...PAYOUT_STATUSES]);
    expect(enumOf(component('LedgerActivity').properties.type)).toEqual([...LEDGER_ENTRY_TYPES]);
    expect(enumOf(component('WebhookDelivery').properties.event)).toEqual([...WEBHOOK_EVENTS]);
    expect(enumOf((component('CreateWebhookRequest').properties.events as { items: Schema }).items)).toEqual([...WEBHOOK_EVENTS]);
  });
});
