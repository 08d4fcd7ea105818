// A brand's day against the rehearsal Worker, through the public API only, plus what the platform
// does outside this API (provisioning the clinic and its catalogue, completing the checkout and moving
// the order), done the way the platform does it: with the lifecycle's own entry points on the same
// database. Then the faults. Every step throws with a message naming what went wrong.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { clinics, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../drizzle/schema';
import { signPlatformRequest } from '../../src/platform/http/platform-request';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../test/helpers/factories';
import { IMAGES, imageForm } from '../../test/helpers/images';
import { makeGlobalProduct, makeTemplate, makeTenantProduct } from '../../test/helpers/program-fixtures';
import { alternating } from '../../test/tooling/doh-stand-in';
import { type Answer, RehearsalClient } from './client';
import { HOSTS, type Stack } from './stack';

/** The platform's signed request to the Worker (src/platform/http/platform-request.ts); 2xx or the rehearsal fails. */
async function platformCall(stack: Stack, clinicId: string, path: string, body: unknown) {
  const raw = JSON.stringify(body);
  const headers = await signPlatformRequest(stack.variables.ROOT_SECRET_KEY!, { method: 'POST', path, clinicId, body: raw });
  const sentAt = performance.now();
  const res = await fetch(`${stack.worker.url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'cf-connecting-ip': '198.51.100.77' },
    body: raw,
  });
  const text = await res.text();
  check(res.status >= 200 && res.status < 300, `${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return { body: JSON.parse(text), sentAt };
}

/** When each delivery first reached the brand's receiver (polled every 2 ms), by event type and payload. */
function watchArrivals(stack: Stack) {
  const seen: { type: string; body: string; at: number }[] = [];
  let index = stack.receiver.received.length;
  const timer = setInterval(() => {
    const now = performance.now();
    for (; index < stack.receiver.received.length; index++) {
      const body = stack.receiver.received[index]!.rawBody;
      seen.push({ type: (JSON.parse(body) as { type: string }).type, body, at: now });
    }
  }, 2);
  return {
    firstOf: (type: string, orderId: string) => seen.find((s) => s.type === type && s.body.includes(orderId))?.at,
    stop: () => clearInterval(timer),
  };
}

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, samples: sorted.length };
}

export interface RehearsalReport {
  /** Event→receiver latency of the platform's events through its entry point and QStash (ms). */
  platformEventLatency?: { p50: number; p99: number; max: number; samples: number };
  /** What was checked, one line each, in order. */
  steps: string[];
  apiCalls: number;
  webhooksVerified: number;
  outboundCalls: Record<string, number>;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`rehearsal: ${message}`);
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 15_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > ms) throw new Error(`rehearsal: timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

export async function runScenario(stack: Stack, log: (line: string) => void = () => {}): Promise<RehearsalReport> {
  const steps: string[] = [];
  const step = (line: string) => {
    steps.push(line);
    log(`  ✓ ${line}`);
  };
  const api = new RehearsalClient(() => stack.worker.url);
  const db = stack.platformDb;
  stack.startQStashDelivery();

  // --- What exists before the brand's day: the platform's catalogue and the brand's clinic (onboarding is elsewhere) ---
  const plan = await makeClinic(db, { mode: 'live' });
  const owner = await makeUser(db, plan.id, { role: 'owner' });
  const products = [
    await makeGlobalProduct(db, { pharmacyBasePriceCents: 9_000 }),
    await makeGlobalProduct(db, { pharmacyBasePriceCents: 12_000 }),
  ];
  const template = await makeTemplate(
    db,
    products.map((p) => ({ globalProductId: p.id, programBaseFeeCents: 4_000 })),
  );
  const tenantProducts = [];
  for (const p of products)
    tenantProducts.push(await makeTenantProduct(db, plan.id, p.id, { facilitationFeeCents: 1_000, isActive: true }));
  const clinicId = plan.id;

  // --- The deployment answers, and is production ---
  await api.loadDocument();
  const health = await api.call('GET', '/healthz', { expect: 200 });
  check(health.body.data.database === 'ok', 'health reports the database');
  for (const path of ['/_dev/orders/00000000-0000-4000-8000-000000000000/events', '/_dev/checkout/sessions/x/complete']) {
    const res = await api.call('POST', path, { body: {} });
    check(res.status === 404, `${path} answers ${res.status}, not 404`);
    check(res.body.message === `No route for POST ${path}`, `${path} is the generic unknown-route 404`);
  }
  // (The production refusal of a request without CF-Connecting-IP cannot be reached here: Miniflare's
  // entry sets the header from the client socket on every request, as Cloudflare's edge does.)
  step('the deploy bundle serves production: /healthz ok, /_dev/* is the unknown-route 404');

  // --- Sign in, keys ---
  const signIn = await api.call('POST', '/auth/signin', { body: { email: owner.email, password: TEST_PASSWORD }, expect: 200 });
  const token: string = signIn.body.data.token;
  const createKey = async (body: Record<string, unknown>) => (await api.call('POST', '/api-keys', { token, body, expect: 201 })).body.data;
  const secretKey = await createKey({ name: 'Server', kind: 'secret', scopes: ['read', 'write'] });
  const publishableKey = await createKey({ name: 'Storefront', kind: 'publishable', scopes: ['read', 'write'] });
  const readKey = await createKey({ name: 'Reporting', kind: 'secret', scopes: ['read'] });
  const key: string = secretKey.apiKey;
  check(typeof key === 'string' && key.startsWith('svc_live_'), `a live secret key (${String(key).slice(0, 9)})`);
  await api.call('GET', '/api/v1/me', { key, expect: 200 });
  const readOnlyWrite = await api.call('POST', '/api/v1/coupons', {
    key: readKey.apiKey,
    body: { code: 'NOPE', discountType: 'percent', discountValue: 5 },
  });
  check(readOnlyWrite.status === 403, `a read-only key may not write (${readOnlyWrite.status})`);
  step('signed in; secret, publishable and read-only keys created; the read-only key cannot write');

  // --- Webhook endpoints: the brand's receiver, and one that is down all day ---
  const endpoint = (
    await api.call('POST', '/api/v1/webhooks', {
      key,
      body: {
        url: `https://${HOSTS.webhooks}/brand/events`,
        events: [
          'session.completed',
          'order.created',
          'payment.succeeded',
          'order.shipped',
          'order.delivered',
          'order.doctor_approved',
          'order.sent_to_pharmacy',
        ],
      },
      expect: 201,
    })
  ).body.data;
  check(typeof endpoint.secret === 'string' && endpoint.secret.startsWith('whsec_'), 'the endpoint secret is shown once');
  step('webhook endpoint registered (https, production URL policy, its name resolved at cloudflare-dns.com)');

  // --- What stops a webhook URL reaching our network (docs/webhooks.md): the review's names, as DNS answers them ---
  stack.dns.set('vcap.me', { A: ['127.0.0.1'] });
  stack.dns.set('lacolhost.com', { A: ['127.0.0.1'] });
  stack.dns.set('7f000001.c0a80001.rbndr.us', { A: alternating(['127.0.0.1'], ['192.168.0.1']) });
  for (const url of [
    'https://vcap.me/hook',
    'https://lacolhost.com/hook',
    'https://7f000001.c0a80001.rbndr.us/hook',
    'https://kubernetes.default.svc/hook',
    `https://${HOSTS.webhooks}:8080/hook`,
    'https://2130706433/hook',
  ]) {
    const res = await api.call('POST', '/api/v1/webhooks', { key, body: { url, events: ['order.created'] } });
    check(res.status === 400 && res.body.errors?.[0]?.field === 'body.url', `${url} refused with a 400 naming body.url (${res.status})`);
  }
  stack.outbound.setFault('cloudflare-dns.com', 'down');
  const unchecked = await api.call('POST', '/api/v1/webhooks', {
    key,
    body: { url: `https://${HOSTS.webhooks}/x`, events: ['order.created'] },
  });
  check(
    unchecked.status === 503 && unchecked.headers.get('retry-after') === '5' && unchecked.body.code === 'DNS_RESOLVER_UNAVAILABLE',
    `the resolver down: 503 DNS_RESOLVER_UNAVAILABLE with Retry-After (${unchecked.status} ${unchecked.body.code})`,
  );
  stack.outbound.setFault('cloudflare-dns.com', 'pass');
  // A name that is public when registered and points at loopback afterwards (DNS rebinding).
  const rebinding = (
    await api.call('POST', '/api/v1/webhooks', {
      key,
      body: { url: `https://${HOSTS.rebindingWebhooks}/events`, events: ['order.created'] },
      expect: 201,
    })
  ).body.data;
  stack.dns.set(HOSTS.rebindingWebhooks, { A: ['127.0.0.1'] });
  step(
    'webhook URLs resolving to loopback or private addresses, .svc names, other ports and IP literals refused (400 body.url); resolver down: 503',
  );

  // --- Program with prices at Stripe, a coupon ---
  const program = (
    await api.call('POST', '/api/v1/programs', {
      key,
      body: { name: 'Weight Care', templateId: template.id, state: 'live', isActive: true },
      expect: 201,
    })
  ).body.data;
  const pricesBefore = stack.stripe.prices.size;
  const listed = (await api.call('GET', '/api/v1/tenant-products', { key, expect: 200 })).body.data as {
    id: string;
    processorPriceId: string | null;
  }[];
  check(listed.length === 2, `two tenant products (${listed.length})`);
  for (const [i, tp] of tenantProducts.entries()) {
    const updated = await api.call('POST', '/api/v1/tenant-products/update', {
      key,
      body: { tenantProductId: tp.id, price: 149 + i * 50 },
      expect: 200,
    });
    const priceId = updated.body.data.processorPriceId as string;
    check(stack.stripe.prices.has(priceId), `price ${priceId} was created at the Stripe stand-in`);
  }
  check(stack.stripe.prices.size === pricesBefore + 2, 'two Stripe prices created');
  const coupon = await api.call('POST', '/api/v1/coupons', {
    key,
    body: { code: 'WELCOME10', discountType: 'percent', discountValue: 10, maxRedemptions: 100 },
    expect: 201,
  });
  check(coupon.body.data.code === 'WELCOME10', 'coupon created');
  await api.call('GET', `/api/v1/programs/${program.id}`, { key, expect: 200 });
  step('program from a template, two prices created at Stripe (stand-in), a coupon');

  // --- Checkout from a browser: CORS preflight, then the publishable key ---
  const origin = 'https://shop.rehearsal-brand-demo.com';
  const preflight = await fetch(`${stack.worker.url}/api/v1/checkout/sessions`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-api-key',
      'cf-connecting-ip': '198.51.100.200',
    },
  });
  check(preflight.status === 204 || preflight.status === 200, `preflight answered ${preflight.status}`);
  check(preflight.headers.get('access-control-allow-origin'), 'preflight allows the origin');
  check(/POST/.test(preflight.headers.get('access-control-allow-methods') ?? ''), 'preflight allows POST');
  check(/x-api-key/i.test(preflight.headers.get('access-control-allow-headers') ?? ''), 'preflight allows x-api-key');
  const session = await api.call('POST', '/api/v1/checkout/sessions', {
    key: publishableKey.apiKey,
    headers: { origin },
    body: { programId: program.id, metadata: { cart: 'c-1' }, successUrl: `${origin}/thanks` },
    expect: 201,
  });
  check(session.headers.get('access-control-allow-origin'), 'the checkout answer carries CORS headers');
  const sessionId: string = session.body.data.sessionId;
  check(
    String(session.body.data.embedUrl).startsWith(`https://${HOSTS.checkout}/embed/${sessionId}#token=`),
    'embedUrl on CHECKOUT_EMBED_BASE_URL',
  );
  const publishableElsewhere = await api.call('GET', '/api/v1/orders', { key: publishableKey.apiKey });
  check(publishableElsewhere.status === 403, `a publishable key reads nothing else (${publishableElsewhere.status})`);
  step('checkout session from a browser origin (CORS preflight) with the publishable key');

  // --- The platform: payment taken at Stripe, session completed, the order moved, through its signed
  // entry point (POST /internal/platform/..., docs/webhooks.md): no cron run, each request kicks delivery ---
  const arrivals = watchArrivals(stack);
  const paymentIntent = `pi_rehearsal_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const sentAt: Record<string, number> = {};
  const completed = await platformCall(stack, clinicId, `/internal/platform/checkout/sessions/${sessionId}/complete`, {
    email: 'pat@example.com',
    firstName: 'Pat',
    lastName: 'Lee',
    processorPaymentId: paymentIntent,
  });
  for (const e of ['session.completed', 'order.created', 'payment.succeeded']) sentAt[e] = completed.sentAt;
  const orderId: string = completed.body.data.orderId;
  const order = (await api.call('GET', `/api/v1/orders/${orderId}`, { key, expect: 200 })).body.data;
  stack.stripe.addCharge(paymentIntent, Math.round(Number(order.totalAmount) * 100));
  const move = (event: Record<string, string>) => platformCall(stack, clinicId, `/internal/platform/orders/${orderId}/events`, event);
  for (const event of ['order.doctor_approved', 'order.sent_to_pharmacy'] as const) sentAt[event] = (await move({ event })).sentAt;
  const expected = ['session.completed', 'order.created', 'payment.succeeded', 'order.doctor_approved', 'order.sent_to_pharmacy'];
  const wh = new Webhook(endpoint.secret);
  const verifiedEvents = () =>
    stack.receiver.received.map((r) => {
      const payload = wh.verify(r.rawBody, {
        'webhook-id': r.headers['webhook-id']!,
        'webhook-timestamp': r.headers['webhook-timestamp']!,
        'webhook-signature': r.headers['webhook-signature']!,
      }) as { type: string };
      return payload.type;
    });
  await until('the order webhooks through QStash', () => expected.every((e) => verifiedEvents().includes(e)));
  const deliveredIds = stack.receiver.received.map((r) => r.headers['webhook-id']);
  check(new Set(deliveredIds).size === deliveredIds.length, 'every delivery arrived once');
  check(stack.qstash.publishCalls >= expected.length, 'deliveries were published to QStash');
  // More of the same for a latency figure: 10 more checkouts completed by the platform, 3 events each.
  const samples: number[] = expected.map((e) => arrivals.firstOf(e, orderId)! - sentAt[e]!);
  for (let i = 0; i < 10; i++) {
    const more = await api.call('POST', '/api/v1/checkout/sessions', {
      key: publishableKey.apiKey,
      body: { programId: program.id },
      expect: 201,
    });
    const call = await platformCall(stack, clinicId, `/internal/platform/checkout/sessions/${more.body.data.sessionId}/complete`, {
      email: `buyer${i}@example.com`,
    });
    const id: string = call.body.data.orderId;
    await until('the platform checkout’s webhooks', () =>
      ['session.completed', 'order.created', 'payment.succeeded'].every((e) => arrivals.firstOf(e, id) !== undefined),
    );
    for (const e of ['session.completed', 'order.created', 'payment.succeeded']) samples.push(arrivals.firstOf(e, id)! - call.sentAt);
  }
  arrivals.stop();
  const latency = percentiles(samples);
  step(
    `platform completed the session and moved the order through its signed entry point (no cron run); ${expected.length} webhooks through QStash, signed callbacks, verified with standardwebhooks; event→receiver over ${samples.length} events: p50 ${latency.p50.toFixed(0)} ms, p99 ${latency.p99.toFixed(0)} ms`,
  );

  // The rebinding endpoint's order.created: resolved again before the attempt, refused, never sent.
  await until('the rebinding endpoint’s attempt refused before sending', async () => {
    const attempts = await db
      .select({ error: webhookAttempts.error })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(eq(webhookDeliveries.endpointId, rebinding.id));
    return attempts.some((a) => a.error?.includes(`${HOSTS.rebindingWebhooks} resolves to 127.0.0.1`));
  });
  check(
    stack.outbound.calls.every((c) => new URL(c.url).host !== HOSTS.rebindingWebhooks),
    'nothing was sent to the host that rebound to loopback',
  );
  step('a name rebinding to loopback after registration: resolved again before the attempt, refused, nothing sent');

  // A QStash signing-key rotation: callbacks signed with the next key are accepted too.
  stack.qstash.signWith = 'next';
  await move({ event: 'order.shipped', carrier: 'UPS', trackingNumber: '1Z999' });
  await until('order.shipped signed with the next QStash key', () => verifiedEvents().includes('order.shipped'));
  stack.qstash.signWith = 'current';
  step('QStash callbacks signed with the next signing key accepted (rotation)');

  // --- Refund through Stripe, payouts ---
  const refundsBefore = stack.stripe.refunds.size;
  await move({ event: 'order.delivered' });
  const refund = await api.call('POST', '/api/v1/refunds', { key, body: { orderId, reason: 'Patient changed their mind' }, expect: 201 });
  check(stack.stripe.refunds.size === refundsBefore + 1, 'one refund created at Stripe');
  const stripeRefund = stack.stripe.refunds.get(refund.body.data.processorRefundId);
  check(stripeRefund, 'the refund id is Stripe’s');
  check(
    stripeRefund.payment_intent === paymentIntent,
    `the refund names the PaymentIntent the platform charged (${String(stripeRefund.payment_intent)})`,
  );
  const payouts = await api.call('GET', '/api/v1/payouts', { key, expect: 200 });
  check(Array.isArray(payouts.body.data), 'payouts listed');
  await api.call('GET', '/api/v1/payouts/balance', { key, expect: 200 });
  step('refund created at Stripe for the PaymentIntent charged; payouts and balance read');

  // --- Contacts CSV, a page published ---
  const csv = 'First Name,Last Name,Email,Phone Number\nAda,Lovelace,ada@example.com,+15550100001\nAlan,Turing,alan@example.com,\n';
  const form = new FormData();
  form.set('csv', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
  const imported = await api.call('POST', '/api/v1/contacts/import', { key, form, expect: 200 });
  check(imported.body.data.imported === 2, `2 contacts imported (${JSON.stringify(imported.body.data)})`);
  // An image into the R2 bucket (the UPLOADS binding), read back from where the API says it is served.
  const uploaded = await api.call('POST', '/api/v1/page-builder/upload-image', {
    key,
    form: imageForm(IMAGES.png, { filename: 'hero.png' }),
    expect: 201,
  });
  const imageUrl = new URL(uploaded.body.data.imageUrl as string);
  check(imageUrl.host === HOSTS.cdn, `the image URL is on UPLOADS_PUBLIC_BASE_URL (${imageUrl})`);
  const bucket = await stack.worker.mf.getR2Bucket('UPLOADS');
  const object = await bucket.get(imageUrl.pathname.slice(1));
  check(object, `the image is in the UPLOADS bucket at ${imageUrl.pathname.slice(1)}`);
  check(Buffer.from(await object.arrayBuffer()).equals(Buffer.from(IMAGES.png)), 'the bucket holds the uploaded bytes');
  const page = (
    await api.call('POST', '/api/v1/page-builder/pages', {
      key,
      body: {
        slug: 'about',
        pageType: 'about',
        draftContent: { sections: [{ type: 'text', title: 'About us', body: 'Care, delivered.', imageUrl: imageUrl.toString() }] },
      },
      expect: 201,
    })
  ).body.data;
  const published = await api.call('POST', `/api/v1/page-builder/pages/${page.id}/publish`, { key, expect: 200 });
  check(published.body.data.status === 'published', 'page published');
  step('CSV contact import (2 rows); an image stored in the R2 bucket; a page using it published');

  // --- Team invitation email through Resend ---
  const emailsBefore = stack.messaging.emails.length;
  const invite = await api.call('POST', '/api/v1/team/invite', {
    key,
    body: { email: 'sam@rehearsal-brand.example', role: 'member' },
    expect: 201,
  });
  check(invite.body.data.status === 'pending', 'invitation pending');
  const inviteEmail = await until('the invitation email at Resend', async () => {
    const found = stack.messaging.emails.slice(emailsBefore).find((e) => JSON.stringify(e.body.to).includes('sam@rehearsal-brand.example'));
    if (!found) await stack.worker.scheduled(); // queued messages also leave with the cron
    return found;
  });
  check(String(inviteEmail.body.from).includes('no-reply@mail.rehearsal-brand-admin.example'), 'sent from EMAIL_FROM');
  step('team invitation email sent through Resend (stand-in)');

  // --- Custom domain at Cloudflare ---
  const domain = await api.call('POST', '/api/v1/clinic/custom-domain/start', {
    key,
    body: { domain: 'shop.rehearsal-brand-demo.com' },
    expect: 200,
  });
  check(
    [...stack.cloudflare.hostnames.values()].some((h) => h.hostname === 'shop.rehearsal-brand-demo.com'),
    'custom hostname created at Cloudflare',
  );
  check(JSON.stringify(domain.body.data.dnsRecords).includes(HOSTS.storefronts), 'the CNAME target is CUSTOM_DOMAIN_CNAME_TARGET');
  step('custom domain started at Cloudflare for SaaS (stand-in)');

  // --- SMS: the clinic's own Twilio account, a toll-free number bought there ---
  await api.call('PUT', '/api/v1/organization/sms/twilio', {
    key,
    body: { accountSid: stack.twilio.accountSid, authToken: stack.twilio.authToken, phoneNumber: '+15550107777' },
    expect: 200,
  });
  const activated = await api.call('POST', '/api/v1/organization/sms/activate', { key, expect: 200 });
  check(stack.twilio.owned.size === 1, `one number bought at Twilio (${stack.twilio.owned.size})`);
  const bought = [...stack.twilio.owned.values()][0]!;
  check(JSON.stringify(activated.body.data).includes(bought), `the clinic's number is the one bought (${bought})`);
  step('SMS: the clinic’s Twilio account stored (encrypted), a toll-free number bought at Twilio (stand-in)');

  // --- Sandbox go-live (another brand, still in its sandbox) ---
  const sandbox = await makeClinic(db, { mode: 'sandbox' });
  const sandboxOwner = await makeUser(db, sandbox.id, { role: 'owner' });
  const sandboxToken = (
    await api.call('POST', '/auth/signin', { body: { email: sandboxOwner.email, password: TEST_PASSWORD }, expect: 200 })
  ).body.data.token;
  const sandboxKey = (
    await api.call('POST', '/api-keys', { token: sandboxToken, body: { name: 'Sandbox', scopes: ['read', 'write'] }, expect: 201 })
  ).body.data.apiKey as string;
  check(sandboxKey.startsWith('svc_test_'), 'a sandbox key');
  const emailsBeforeGoLive = stack.messaging.emails.length;
  const goLive = await api.call('POST', '/api/v1/sandbox/go-live', {
    key: sandboxKey,
    body: { signerFirstName: 'Rae', signerLastName: 'Kim', signerEmail: 'rae@sandbox-brand.example' },
    expect: 202,
  });
  check(goLive.body.data.status === 'requested', 'go-live requested');
  await until('the go-live invitation email at Resend', async () => {
    const found = stack.messaging.emails
      .slice(emailsBeforeGoLive)
      .find((e) => JSON.stringify(e.body.to).includes('rae@sandbox-brand.example'));
    if (!found) await stack.worker.scheduled();
    return found;
  });
  step('sandbox go-live requested; the signer’s invitation sent through Resend');

  // --- A key revoked, refused on its next request ---
  const revoked = await api.call('DELETE', `/api-keys/${readKey.id}`, { token, expect: 200 });
  check(revoked.status === 200, 'key revoked');
  const refused = await api.call('GET', '/api/v1/me', { key: readKey.apiKey });
  check(refused.status === 401, `the revoked key is refused (${refused.status})`);
  step('a key revoked and refused on its next request (401)');

  // ================= Faults =================

  // QStash down for a while: nothing lost, the cron republishes once it is back.
  stack.outbound.setFault('qstash.upstash.io', 'down');
  const before = stack.receiver.received.length;
  const order2 = await secondOrder(api, stack, key, publishableKey.apiKey, program.id, clinicId, db);
  await stack.worker.scheduled();
  await stack.worker.scheduled();
  const pendingWhileDown = await db.$count(webhookDeliveries, eq(webhookDeliveries.status, 'pending'));
  check(pendingWhileDown >= 3, `deliveries wait in the database while QStash is down (${pendingWhileDown} pending)`);
  check(stack.receiver.received.length === before, 'nothing delivered while QStash is down');
  stack.outbound.setFault('qstash.upstash.io', 'pass');
  await stack.worker.scheduled();
  await until(
    'the second order’s webhooks after QStash came back',
    () => stack.receiver.received.slice(before).filter((r) => r.rawBody.includes(order2)).length >= 3,
  );
  const secondIds = stack.receiver.received.slice(before).map((r) => r.headers['webhook-id']);
  check(new Set(secondIds).size === secondIds.length, 'each delivered once after the outage');
  step('QStash down across two cron runs: deliveries kept; republished by the cron once back, each delivered once');

  // The Upstash store hanging: each rule fails as documented (docs/api-conventions.md, "Rate limits").
  stack.outbound.setFault(HOSTS.upstash, 'hang');
  const open = await api.call('GET', '/api/v1/me', { key, expect: 200 });
  check(
    open.headers.get('ratelimit-limit') && open.headers.get('ratelimit-policy'),
    'API key let through with RateLimit-Limit and -Policy',
  );
  check(open.headers.get('ratelimit-remaining') === null, 'no RateLimit-Remaining when the store did not answer');
  const email = owner.email;
  const attempts = await Promise.all(
    Array.from({ length: 11 }, () =>
      api.call('POST', '/auth/signin', { body: { email, password: 'wrong password' }, headers: { 'cf-connecting-ip': '192.0.2.77' } }),
    ),
  );
  const statuses = attempts.map((a: Answer) => a.status).sort();
  check(
    statuses.filter((s) => s === 401).length === 10 && statuses.filter((s) => s === 429).length === 1,
    `sign-in counted in-process: 10×401 then 429 (${statuses.join(',')})`,
  );
  const healthWhileHanging = await api.call('GET', '/healthz', { expect: 200 });
  check(healthWhileHanging.status === 200, 'root routes counted in-process, still answered');
  stack.outbound.setFault(HOSTS.upstash, 'pass');
  stack.outbound.releaseHangs();
  step('Upstash hanging: keys fail open (no counts), sign-in counted in-process (11th refused), root routes still answer');

  // A receiver answering 500 every time: ten attempts, the endpoint turned off, no 11th.
  const failing = (
    await api.call('POST', '/api/v1/webhooks', {
      key,
      body: { url: `https://${HOSTS.failingWebhooks}/events`, events: ['session.completed', 'order.created', 'payment.succeeded'] },
      expect: 201,
    })
  ).body.data;
  // Four more checkouts: 12 events for the failing endpoint.
  for (let i = 0; i < 4; i++) await secondOrder(api, stack, key, publishableKey.apiKey, program.id, clinicId, db);
  await stack.worker.scheduled();
  await until('the endpoint turned off after 10 failures', async () => {
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, failing.id));
    return row && !row.isActive;
  });
  await sleep(6_000); // past the first retry's 5 s: QStash calls back, and the endpoint is off
  await stack.worker.scheduled();
  await sleep(500);
  check(
    stack.failingReceiver.received.length === 10,
    `exactly 10 attempts at the failing receiver (${stack.failingReceiver.received.length})`,
  );
  const shown = await api.call('GET', `/api/v1/webhooks/${failing.id}`, { key, expect: 200 });
  check(
    shown.body.data.isActive === false && shown.body.data.consecutiveFailures === 10,
    'the endpoint reads off with 10 consecutive failures',
  );
  step('a receiver answering 500: 10 attempts, endpoint off, no 11th attempt');

  // Nothing went to a host without a stand-in.
  check(
    stack.outbound.unrouted().length === 0,
    `calls to unknown hosts: ${stack.outbound
      .unrouted()
      .map((c) => c.url)
      .join(', ')}`,
  );
  const outboundCalls: Record<string, number> = {};
  for (const call of stack.outbound.calls) {
    const host = new URL(call.url).host;
    outboundCalls[host] = (outboundCalls[host] ?? 0) + 1;
  }
  // The clinic row is untouched by the faults (a sanity read through the pooler).
  check((await db.select().from(clinics).where(eq(clinics.id, clinicId))).length === 1, 'clinic still there');
  return { steps, apiCalls: api.calls.length, webhooksVerified: verifiedEvents().length, outboundCalls, platformEventLatency: latency };
}

/** A second checkout completed and paid by the platform, its id returned. */
async function secondOrder(
  api: RehearsalClient,
  stack: Stack,
  _key: string,
  publishable: string,
  programId: string,
  clinicId: string,
  db: Stack['platformDb'],
): Promise<string> {
  const session = await api.call('POST', '/api/v1/checkout/sessions', { key: publishable, body: { programId }, expect: 201 });
  const paymentIntent = `pi_rehearsal_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  void db;
  const { orderId } = (
    await platformCall(stack, clinicId, `/internal/platform/checkout/sessions/${session.body.data.sessionId}/complete`, {
      email: 'kim@example.com',
      processorPaymentId: paymentIntent,
    })
  ).body.data as { orderId: string };
  stack.stripe.addCharge(paymentIntent, 1_000_000);
  return orderId;
}
