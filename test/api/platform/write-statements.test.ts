// Statements are a test, not a hope, for writes too (issue 29, item 2): every write of the route table
// (POST, PUT, PATCH, DELETE with a key or a brand-admin token), called with proper credentials and a
// valid body on the demo clinic, sends exactly the statements listed in STATEMENTS, counted from the
// database as the read walker counts them (read-statements.test.ts): every statement of the request,
// BEGIN and COMMIT included, the key's lookup and the request log left out (the key is cached on an
// isolate's later requests; the log is batched off the request's path). Then the same walk with an
// Idempotency-Key: each key write costs exactly one statement more (the claim, sent with BEGIN; the
// kept answer rides the statement that carries the audit row), a write that is not audited (a preview,
// a count) one too (its answer kept after it, with no transaction: idempotentAnswer). And no
// write's statements grow with a list in its body: each route that takes one is run with a list of 1
// and a list of LIST_SIZE and must send as many statements for both.
//
// The requests are built by test/helpers/write-walk.ts (shared with audit-values.test.ts): the body is
// sampled from the OpenAPI document, and CASES there builds one that succeeds where the sample cannot.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { leaves, operationInputs, sample } from '../../helpers/openapi-inputs';
import { resolveSchema } from '../../helpers/strict-response';
import { restoreAccess } from '../../helpers/two-clinics';
import { build, CASES, DOCUMENT, LIST_SIZE, LISTS, nameOf, type Route, useWriteWalk, WRITES, walkWorld } from '../../helpers/write-walk';

const t = useTestApp();
useWriteWalk(t);

/** The gateway's key lookup (a cold key, or a key a revocation marker sends back to the database). */
const isKeyLookup = (statement: string) => /^select "api_keys"\."id".* where "api_keys"\."key_hash" = \$1/s.test(statement);
const counted = (statement: string) => !statement.includes('"request_logs"') && !isKeyLookup(statement);

/** The statements of the route's nth request (its background work settled), and its answer. */
async function measure(route: Route, n: number, options: { idempotencyKey?: string; list?: number } = {}) {
  await restoreAccess(t.db, walkWorld());
  const { url, init } = await build(route, n, options);
  await t.flush();
  t.queries.length = 0;
  const res = await t.send(url, init);
  const text = await res.text();
  await t.flush();
  const statements = t.queries.filter(counted);
  await CASES[nameOf(route)]?.after?.();
  return { status: res.status, count: statements.length, statements, text };
}

/**
 * Lists in a body that are not a row each: a few names or numbers stored in one column, bounded by
 * their enum. The other routes taking a list are run with 1 and LIST_SIZE items (LISTS).
 */
const SHORT_LISTS: Record<string, string> = {
  'POST /api-keys': 'scopes: read and write, one column',
  'POST /api/v1/products': 'categories: category names, one column',
  'PUT /api/v1/products/{id}': 'categories: category names, one column',
  'PUT /api/v1/products-management/{id}': 'categories: category names, one column',
  'POST /api/v1/programs/{id}/titration-protocols': 'allowedBillingMonths: up to 12 numbers, one column',
  'PUT /api/v1/programs/{id}/titration-protocols/{attachmentId}': 'allowedBillingMonths: up to 12 numbers, one column',
  'POST /api/v1/webhooks': 'events: event type names, one column',
  'PATCH /api/v1/webhooks/{id}': 'events: event type names, one column',
};

/** Whether the route's body holds a list (a JSON array at any depth, or a CSV file of rows). */
function takesList(route: Route): boolean {
  const inputs = operationInputs(DOCUMENT, route);
  if (inputs.multipartBody) return 'csv' in ((resolveSchema(DOCUMENT, inputs.multipartBody).properties ?? {}) as object);
  if (!inputs.jsonBody) return false;
  return leaves(DOCUMENT, inputs.jsonBody, sample(DOCUMENT, inputs.jsonBody)).some((leaf) =>
    leaf.path.some((part) => typeof part === 'number'),
  );
}

/** Statements per write (BEGIN and COMMIT included), generated from a run (WRITE_STATEMENTS_TABLE=1 prints it) and reviewed. */
const STATEMENTS: Record<string, number> = {
  'POST /api-keys': 9,
  'POST /api-keys/{id}/roll': 10,
  'POST /api/v1/coupons': 4,
  'POST /api/v1/pharmacy-price-changes/alerts/{alertId}/acknowledge': 4,
  'POST /api/v1/products': 5,
  'POST /api/v1/programs/{id}/upload-image': 8,
  'POST /api/v1/products/{id}/upload-image': 4,
  'POST /api/v1/global-products/{id}/upload-image': 8,
  'POST /api/v1/tenant-products/update': 9,
  'POST /api/v1/tenant-products/update-selection': 10,
  'POST /api/v1/programs/copilot/draft': 2,
  'POST /api/v1/programs': 9,
  'POST /api/v1/programs/sync-all': 26,
  'POST /api/v1/programs/{id}/duplicate': 10,
  'POST /api/v1/programs/{id}/sync': 10,
  'POST /api/v1/programs/{id}/titration-protocols': 8,
  'POST /api/v1/payouts/withdraw': 9,
  'POST /api/v1/refunds': 15,
  'POST /api/v1/refund-requests/{id}/{action}': 9,
  'POST /api/v1/webhooks': 9,
  'POST /api/v1/webhooks/{id}/rotate-secret': 9,
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay': 5,
  'POST /api/v1/webhooks/{id}/recover': 7,
  'POST /api/v1/webhooks/{id}/test': 9,
  'POST /api/v1/checkout/sessions': 4,
  'POST /api/v1/contacts': 8,
  'POST /api/v1/contacts/import': 6,
  'POST /api/v1/tags': 4,
  'POST /api/v1/tags/{id}/assign': 8,
  'POST /api/v1/message-templates': 4,
  'POST /api/v1/message-templates/upload-image': 6,
  'POST /api/v1/message-templates/{id}/duplicate': 5,
  'POST /api/v1/sequences': 4,
  'POST /api/v1/sequence-triggers/manual': 8,
  'POST /api/v1/affiliate-program/payouts/generate': 8,
  'POST /api/v1/affiliate-program/payouts/{id}/approve': 8,
  'POST /api/v1/affiliate-program/payouts/{id}/mark-paid': 9,
  'POST /api/v1/affiliate-program/payouts/{payoutId}/exclude-commissions': 10,
  'POST /api/v1/affiliate-program/tax-documents/{docId}/verify': 8,
  'POST /api/v1/affiliate-program/tax-documents/{docId}/reject': 8,
  'POST /api/v1/affiliate-program/tiers': 7,
  'POST /api/v1/crm/connect/apikey': 4,
  'POST /api/v1/page-builder/upload-image': 6,
  'POST /api/v1/page-builder/pages': 6,
  'POST /api/v1/page-builder/pages/{id}/publish': 9,
  'POST /api/v1/custom-website': 5,
  'POST /api/v1/custom-website/toggle-active': 5,
  'POST /api/v1/custom-website/reset-footer': 5,
  'POST /api/v1/custom-website/reset-social-media': 5,
  'POST /api/v1/custom-website/upload-logo': 9,
  'POST /api/v1/custom-website/upload-hero': 9,
  'POST /api/v1/treatments': 6,
  'POST /api/v1/brand-treatments': 8,
  'POST /api/v1/treatment/{id}/upload-logo': 8,
  'POST /api/v1/forms/global-products': 8,
  'POST /api/v1/intake-requests': 4,
  'POST /api/v1/teleform-removals/{id}/cancel': 7,
  'POST /api/v1/likes/admin/counts': 1,
  'POST /api/v1/notifications/read': 4,
  'POST /api/v1/billing/preview-upgrade': 1,
  'POST /api/v1/billing/change': 10,
  'POST /api/v1/billing/cancel': 9,
  'POST /api/v1/onboarding/request-name-change': 8,
  'POST /api/v1/onboarding/confirm-signature-declaration': 8,
  'POST /api/v1/onboarding/save-business-details': 9,
  'POST /api/v1/sandbox/go-live': 15,
  'POST /api/v1/organization/sms/activate': 7,
  'POST /api/v1/clinic/custom-domain/start': 9,
  'POST /api/v1/clinic/custom-domain/verify': 5,
  'POST /api/v1/clinic/custom-domain/finalize': 6,
  'POST /api/v1/clinic/custom-domain/remove': 5,
  'POST /api/v1/clinic/email-domain/start': 10,
  'POST /api/v1/clinic/email-domain/verify': 5,
  'POST /api/v1/clinic/email-domain/remove': 5,
  'POST /api/v1/clinic/{id}/upload-logo': 7,
  'POST /api/v1/upload/logo': 7,
  'POST /api/v1/team/invite': 11,
  'POST /api/v1/conversations/{id}/messages': 7,
  'POST /api/v1/conversations/{id}/resolve': 7,
  'POST /api/v1/support/tickets': 4,
  'POST /api/v1/support/tickets/{id}/messages': 8,
  'PUT /api/v1/coupons/{id}': 7,
  'PUT /api/v1/products/{id}': 5,
  'PUT /api/v1/products-management/{id}': 5,
  'PUT /api/v1/programs/{id}': 10,
  'PUT /api/v1/programs/{id}/products': 11,
  'PUT /api/v1/programs/{id}/titration-protocols/{attachmentId}': 4,
  'PUT /api/v1/contacts/{id}': 8,
  'PUT /api/v1/tags/{id}': 4,
  'PUT /api/v1/message-templates/{id}': 7,
  'PUT /api/v1/sequences/{id}': 8,
  'PUT /api/v1/sequences/{id}/steps': 10,
  'PUT /api/v1/affiliate-program': 8,
  'PUT /api/v1/page-builder/pages/{id}': 6,
  'PUT /api/v1/page-builder/navigation': 4,
  'PUT /api/v1/treatments/{id}': 7,
  'PUT /api/v1/organization/sms/{provider}': 7,
  'PUT /api/v1/organization/update': 12,
  'PUT /api/v1/clinic/email-sender': 5,
  'PUT /api/v1/clinic/{id}': 5,
  'PUT /api/v1/support/tickets/{id}': 9,
  'PATCH /api/v1/programs/{id}/products/{productId}/activate': 4,
  'PATCH /api/v1/programs/{id}/products/{productId}/visibility': 4,
  'PATCH /api/v1/webhooks/{id}': 7,
  'PATCH /api/v1/affiliate-program/affiliates/{membershipId}': 8,
  'PATCH /api/v1/crm/connection/phi-sync': 4,
  'PATCH /api/v1/team/{userId}/role': 7,
  'DELETE /api-keys/{id}': 8,
  'DELETE /api/v1/coupons/{id}': 4,
  'DELETE /api/v1/programs/{id}': 11,
  'DELETE /api/v1/programs/{id}/titration-protocols/{attachmentId}': 4,
  'DELETE /api/v1/webhooks/{id}': 8,
  'DELETE /api/v1/tags/{id}': 4,
  'DELETE /api/v1/tags/{id}/assign/{userId}': 4,
  'DELETE /api/v1/message-templates/{id}': 8,
  'DELETE /api/v1/affiliate-program/tiers/{tierId}': 4,
  'DELETE /api/v1/crm/connection': 4,
  'DELETE /api/v1/page-builder/pages/{id}': 4,
  'DELETE /api/v1/brand-treatments': 4,
  'DELETE /api/v1/forms/global-products': 4,
  'DELETE /api/v1/organization/sms/release': 6,
  'DELETE /api/v1/organization/sms/{provider}': 7,
  'DELETE /api/v1/team/invitations/{invitationId}': 7,
  'DELETE /api/v1/team/{userId}': 8,
};

/** Above this many statements a write says why in MANY_STATEMENTS. */
const MANY = 10;
const MANY_STATEMENTS: Record<string, string> = {
  'POST /api/v1/programs/sync-all':
    'four statements per program made from a template (5 in the demo data): grows with the clinic, not the body',
  'POST /api/v1/refunds':
    'locks the clinic and the order, checks refunds, payment and balance, then writes refund, order, payment, ledger, order event',
  'POST /api/v1/sandbox/go-live':
    'the go-live request, the signer invitation (cancelling an older one) and its email, onboarding, the clinic',
  'POST /api/v1/team/invite': 'expires an old invitation, checks member and pending invitation, writes the invitation and its email',
  'PUT /api/v1/programs/{id}/products': 'locks the program, checks the products, replaces the links, answers the program read back',
  'PUT /api/v1/organization/update':
    'reads the custom domain and checks the hostname twice each (see the report), then writes domain and organization',
  'DELETE /api/v1/programs/{id}': 'locks the program, counts enrollments, reads it for the answer, deletes it in a savepoint of its own',
};

/** Writes that cannot answer 2xx here, with their status and why. */
const UNREACHED: Record<string, { status: number; reason: string }> = {
  'POST /api/v1/programs/copilot/draft': { status: 503, reason: 'needs an AI provider (Workers AI); the test app has none' },
};

describe('database statements per write', () => {
  it('every write sends the statements listed, and with an Idempotency-Key exactly one more', async () => {
    const wrong: string[] = [];
    const lines: string[] = [];
    for (const route of WRITES) {
      const name = nameOf(route);
      const plain = await measure(route, 0);
      const expectedStatus = UNREACHED[name]?.status;
      if (expectedStatus ? plain.status !== expectedStatus : plain.status >= 300)
        wrong.push(`${name} answered ${plain.status}: ${plain.text.slice(0, 300)}`);
      if (plain.count !== STATEMENTS[name]) wrong.push(`${name}: ${plain.count} statements, listed ${STATEMENTS[name]}`);
      if (STATEMENTS[name]! > MANY && !MANY_STATEMENTS[name])
        wrong.push(`${name}: ${STATEMENTS[name]} statements and no reason in MANY_STATEMENTS`);
      lines.push(`  '${name}': ${plain.count},`);
      if (process.env.WRITE_STATEMENTS_SQL) lines.push(...plain.statements.map((q) => `    // ${q.replace(/\s+/g, ' ').slice(0, 160)}`));
      // Brand-admin tokens' writes take no Idempotency-Key (docs/api-conventions.md).
      if (route.access.auth !== 'key') continue;
      const keyed = await measure(route, 1, { idempotencyKey: randomUUID() });
      if (keyed.status !== plain.status)
        wrong.push(`${name} answered ${keyed.status} with an Idempotency-Key: ${keyed.text.slice(0, 300)}`);
      if (keyed.count !== plain.count + 1)
        wrong.push(`${name}: ${keyed.count} statements with an Idempotency-Key, ${plain.count} without (expected 1 more)`);
    }
    if (process.env.WRITE_STATEMENTS_TABLE) console.log(lines.join('\n'));
    expect(wrong, wrong.join('\n')).toEqual([]);
  }, 120_000);

  it('no write sends more statements for a longer list in its body', async () => {
    const grew: string[] = [];
    for (const route of WRITES.filter((r) => LISTS[nameOf(r)])) {
      const name = nameOf(route);
      const one = await measure(route, 2, { list: 1 });
      const many = await measure(route, 3, { list: LIST_SIZE });
      expect(one.status, `${name} with a list of 1: ${one.text.slice(0, 300)}`).toBeLessThan(300);
      expect(many.status, `${name} with a list of ${LIST_SIZE}: ${many.text.slice(0, 300)}`).toBeLessThan(300);
      if (many.count !== one.count) grew.push(`${name}: ${one.count} -> ${many.count}`);
    }
    expect(grew, grew.join('\n')).toEqual([]);
  }, 120_000);

  it('every write that takes a list in its body is in LISTS', () => {
    const missing = WRITES.filter((route) => !LISTS[nameOf(route)] && takesList(route)).map(nameOf);
    expect(missing.filter((name) => !SHORT_LISTS[name])).toEqual([]);
  });
});
