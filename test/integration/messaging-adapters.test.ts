// The production message senders against a local stand-in of Resend and Twilio (messaging-stand-in.ts):
// what each adapter sends (auth, body shape, idempotency key), how answers map to sent / failed /
// retry, and deliverQueuedMessages over the messages table (claiming rows so concurrent runs never
// send twice, expiry, sandbox clinics), deliverSoon after POST /contacts, and the cron sweep.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../drizzle/schema';
import type { AppConfig } from '../../src/config';
import { providersFor } from '../../src/platform/providers';
import {
  DevelopmentMessageSender,
  deliverQueuedMessages,
  deliverQueuedMessagesSweep,
  MESSAGE_MAX_AGE_MS,
  type MessageTransport,
  type OutgoingMessage,
  QueueingMessageSender,
  ResendEmailTransport,
  TwilioSmsTransport,
} from '../../src/platform/providers/messaging';
import { buildTestApp, useTestApp } from '../helpers/app';
import { makeClinic, makeTenant } from '../helpers/factories';
import { type MessagingStandIn, startMessagingStandIn } from './messaging-stand-in';

const t = useTestApp();
let standIn: MessagingStandIn;

beforeAll(async () => {
  standIn = await startMessagingStandIn();
});
afterAll(async () => {
  await standIn?.close();
});

const resendConfig = (overrides: Partial<{ apiKey: string; baseUrl: string }> = {}) => ({
  apiKey: standIn.resendKey,
  from: 'Brand Admin <no-reply@mail.example.com>',
  baseUrl: standIn.baseUrl,
  ...overrides,
});
const twilioConfig = (overrides: Partial<{ authToken: string; baseUrl: string }> = {}) => ({
  accountSid: standIn.twilioSid,
  authToken: standIn.twilioToken,
  fromNumber: '+15550100000',
  baseUrl: standIn.baseUrl,
  ...overrides,
});
const email = (overrides: Partial<{ id: string; to: string; subject: string | null; body: string }> = {}) => ({
  id: randomUUID(),
  channel: 'email' as const,
  to: 'jane@example.com',
  subject: 'Welcome',
  body: 'Hello Jane',
  ...overrides,
});
const text = (overrides: Partial<{ id: string; to: string; body: string }> = {}) => ({
  id: randomUUID(),
  channel: 'sms' as const,
  to: '+15550102000',
  subject: null,
  body: 'Your refill ships today',
  ...overrides,
});
const lastRequest = () => standIn.requests[standIn.requests.length - 1]!;
/** A port nothing listens on. */
const CLOSED = 'http://127.0.0.1:9';

describe('ResendEmailTransport', () => {
  it('POSTs /emails with the Bearer key, JSON { from, to: [..], subject, text } and an idempotency key; 200 { id } is sent', async () => {
    const transport = new ResendEmailTransport(resendConfig());
    const message = email();
    const result = await transport.deliver(message);
    expect(result).toEqual({ ok: true, providerMessageId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const request = lastRequest();
    expect(request).toMatchObject({ provider: 'resend', method: 'POST', path: '/emails' });
    expect(request.headers.authorization).toBe(`Bearer ${standIn.resendKey}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['idempotency-key']).toBe(`message-${message.id}`);
    expect(request.body).toEqual({
      from: 'Brand Admin <no-reply@mail.example.com>',
      to: ['jane@example.com'],
      subject: 'Welcome',
      text: 'Hello Jane',
    });
    expect(standIn.emails.at(-1)!.id).toBe((result as { providerMessageId: string }).providerMessageId);
  });

  it('sends the same message twice as one email (the idempotency key replays the first id)', async () => {
    const transport = new ResendEmailTransport(resendConfig());
    const message = email();
    const before = standIn.emails.length;
    const first = await transport.deliver(message);
    const second = await transport.deliver(message);
    expect(second).toEqual(first);
    expect(standIn.emails.length).toBe(before + 1);
  });

  it('maps refusals: a bad key or bad input fails for good, 429/5xx/concurrent idempotent requests are retried', async () => {
    const badKey = await new ResendEmailTransport(resendConfig({ apiKey: 're_wrong' })).deliver(email());
    expect(badKey).toEqual({ ok: false, retry: false, error: 'resend: HTTP 403 invalid_api_key: API key is invalid' });
    expect(JSON.stringify(badKey)).not.toContain('re_wrong');

    const transport = new ResendEmailTransport(resendConfig());
    const invalid = await transport.deliver(email({ to: 'not an address' }));
    expect(invalid).toMatchObject({ ok: false, retry: false, error: expect.stringContaining('HTTP 422 validation_error') });

    standIn.failNext('resend', 429, { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests' });
    expect(await transport.deliver(email())).toMatchObject({ ok: false, retry: true, error: expect.stringContaining('HTTP 429') });
    standIn.failNext('resend', 500, { statusCode: 500, name: 'internal_server_error', message: 'Unexpected error' });
    expect(await transport.deliver(email())).toMatchObject({ ok: false, retry: true, error: expect.stringContaining('HTTP 500') });
    standIn.failNext('resend', 409, { statusCode: 409, name: 'concurrent_idempotent_requests', message: 'in progress' });
    expect(await transport.deliver(email())).toMatchObject({ ok: false, retry: true });

    // The same key with another body is a mistake, not worth retrying.
    const message = email();
    await transport.deliver(message);
    expect(await transport.deliver({ ...message, body: 'changed' })).toMatchObject({
      ok: false,
      retry: false,
      error: expect.stringContaining('invalid_idempotent_request'),
    });
  });

  it('treats an unreachable provider and a provider that does not answer in time as retryable', async () => {
    expect(await new ResendEmailTransport(resendConfig({ baseUrl: CLOSED })).deliver(email())).toMatchObject({
      ok: false,
      retry: true,
      error: expect.stringMatching(/^resend: /),
    });
    standIn.delayNext(1_000);
    const slow = await new ResendEmailTransport(resendConfig(), undefined, 100).deliver(email());
    expect(slow).toEqual({ ok: false, retry: true, error: 'resend: no answer in time' });
  });
});

describe('TwilioSmsTransport', () => {
  it('POSTs /2010-04-01/Accounts/{sid}/Messages.json with basic auth and a form body To, From, Body; 201 { sid } is sent', async () => {
    const transport = new TwilioSmsTransport(twilioConfig());
    const result = await transport.deliver(text({ body: 'Café & more = 100%' }));
    expect(result).toEqual({ ok: true, providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/) });
    const request = lastRequest();
    expect(request).toMatchObject({ provider: 'twilio', method: 'POST', path: `/2010-04-01/Accounts/${standIn.twilioSid}/Messages.json` });
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${standIn.twilioSid}:${standIn.twilioToken}`).toString('base64')}`);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body).toEqual({ To: '+15550102000', From: '+15550100000', Body: 'Café & more = 100%' });
    expect(standIn.sms.at(-1)!.sid).toBe((result as { providerMessageId: string }).providerMessageId);
  });

  it('maps refusals: bad credentials and a bad number fail for good, 429/5xx and network failures are retried', async () => {
    const badToken = await new TwilioSmsTransport(twilioConfig({ authToken: 'wrong' })).deliver(text());
    expect(badToken).toEqual({ ok: false, retry: false, error: 'twilio: HTTP 401 error 20003: Authenticate' });

    const transport = new TwilioSmsTransport(twilioConfig());
    expect(await transport.deliver(text({ to: '555-0100' }))).toMatchObject({
      ok: false,
      retry: false,
      error: expect.stringContaining('error 21211'),
    });
    standIn.failNext('twilio', 429, { code: 20429, message: 'Too Many Requests', status: 429 });
    expect(await transport.deliver(text())).toMatchObject({
      ok: false,
      retry: true,
      error: 'twilio: HTTP 429 error 20429: Too Many Requests',
    });
    standIn.failNext('twilio', 503, { code: 20503, message: 'Service unavailable', status: 503 });
    expect(await transport.deliver(text())).toMatchObject({ ok: false, retry: true });
    expect(await new TwilioSmsTransport(twilioConfig({ baseUrl: CLOSED })).deliver(text())).toMatchObject({ ok: false, retry: true });
  });
});

describe('deliverQueuedMessages', () => {
  const transport = (): MessageTransport => ({
    email: new ResendEmailTransport(resendConfig()),
    sms: new TwilioSmsTransport(twilioConfig()),
  });
  const outgoing = (clinicId: string, overrides: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
    clinicId,
    channel: 'email',
    kind: 'welcome',
    to: `p-${randomUUID().slice(0, 8)}@example.com`,
    subject: 'Welcome',
    body: 'Hello',
    ...overrides,
  });
  const rowsOf = (ids: string[]) => t.db.select().from(messages).where(inArray(messages.id, ids)).orderBy(messages.createdAt);
  /** Rows other tests left queued are set aside, so a run over "every queued row" sees only this test's. */
  const setAsideQueued = () =>
    t.db.update(messages).set({ status: 'failed', error: 'set aside by a test' }).where(eq(messages.status, 'queued'));

  it('the queueing sender records queued rows; a run hands them to the providers and marks them sent', async () => {
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const now = new Date();
    const mail = await sender.send(t.db, outgoing(clinic.id), now);
    const sms = await sender.send(t.db, outgoing(clinic.id, { channel: 'sms', to: '+15550102000', subject: null, body: 'Hi' }), now);
    expect(mail.status).toBe('queued');
    const queued = await rowsOf([mail.id, sms.id]);
    expect(queued.map((r) => [r.status, r.provider, r.sentAt])).toEqual([
      ['queued', 'resend', null],
      ['queued', 'twilio', null],
    ]);

    const later = new Date(now.getTime() + 5_000);
    const report = await deliverQueuedMessages(t.db, later, transport(), { ids: [mail.id, sms.id] });
    expect(report).toEqual({ sent: 2, failed: 0, retrying: 0, sandboxed: 0 });
    const [sentMail, sentSms] = await Promise.all([rowsOf([mail.id]), rowsOf([sms.id])]);
    expect(sentMail[0]).toMatchObject({ status: 'sent', provider: 'resend', sentAt: later, error: null });
    expect(sentMail[0]!.providerMessageId).toBe(standIn.emails.find((e) => e.idempotencyKey === `message-${mail.id}`)!.id);
    expect(sentSms[0]).toMatchObject({ status: 'sent', provider: 'twilio', sentAt: later, error: null });
    expect(sentSms[0]!.providerMessageId).toMatch(/^SM/);
    // A second run finds nothing to do.
    expect(await deliverQueuedMessages(t.db, later, transport(), { ids: [mail.id, sms.id] })).toEqual({
      sent: 0,
      failed: 0,
      retrying: 0,
      sandboxed: 0,
    });
  });

  it('sends an html row as the HTML part with a plain-text part made from it; a text row as text only', async () => {
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const now = new Date();
    const html = '<p>Hi Al&lt;i&gt;ce,</p><p>Welcome to <b>Demo&nbsp;Clinic</b>. <a href="https://example.com/start">Start here</a></p>';
    const mail = await sender.send(t.db, outgoing(clinic.id, { body: html, format: 'html' }), now);
    const plain = await sender.send(t.db, outgoing(clinic.id, { body: '<b>not markup here</b>' }), now);
    expect((await rowsOf([mail.id, plain.id])).map((r) => r.format)).toEqual(['html', 'text']);
    expect(await deliverQueuedMessages(t.db, now, transport(), { ids: [mail.id, plain.id] })).toMatchObject({ sent: 2 });
    const sent = (id: string) => standIn.emails.find((e) => e.idempotencyKey === `message-${id}`)!.body;
    expect(sent(mail.id)).toMatchObject({
      html,
      text: 'Hi Al<i>ce,\n\nWelcome to Demo Clinic. Start here (https://example.com/start)',
    });
    expect(sent(plain.id)).toMatchObject({ text: '<b>not markup here</b>' });
    expect(sent(plain.id)).not.toHaveProperty('html');
  });

  it('keeps a row queued with the error after a retryable failure and sends it on the next run; a refusal fails it', async () => {
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const now = new Date();
    const retry = await sender.send(t.db, outgoing(clinic.id), now);
    standIn.failNext('resend', 503, { statusCode: 503, name: 'application_error', message: 'down' });
    expect(await deliverQueuedMessages(t.db, now, transport(), { ids: [retry.id] })).toMatchObject({ retrying: 1 });
    expect((await rowsOf([retry.id]))[0]).toMatchObject({
      status: 'queued',
      error: 'resend: HTTP 503 application_error: down',
      sentAt: null,
    });
    expect(await deliverQueuedMessages(t.db, now, transport(), { ids: [retry.id] })).toMatchObject({ sent: 1 });
    expect((await rowsOf([retry.id]))[0]).toMatchObject({ status: 'sent', error: null });

    const refused = await sender.send(t.db, outgoing(clinic.id, { channel: 'sms', to: '+1555' }), now);
    expect(await deliverQueuedMessages(t.db, now, transport(), { ids: [refused.id] })).toMatchObject({ failed: 1 });
    expect((await rowsOf([refused.id]))[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('21211'),
      providerMessageId: null,
    });
  });

  it('gives up on a row queued for more than 24 hours without calling the provider', async () => {
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const created = new Date(Date.now() - MESSAGE_MAX_AGE_MS - 60_000);
    const old = await sender.send(t.db, outgoing(clinic.id), created);
    await t.db.update(messages).set({ error: 'resend: HTTP 500 internal_server_error' }).where(eq(messages.id, old.id));
    const calls = standIn.requests.length;
    expect(await deliverQueuedMessages(t.db, new Date(), transport(), { ids: [old.id] })).toMatchObject({ failed: 1, sent: 0 });
    expect(standIn.requests.length).toBe(calls);
    expect((await rowsOf([old.id]))[0]).toMatchObject({
      status: 'failed',
      error: 'not delivered within 24 hours (last error: resend: HTTP 500 internal_server_error)',
    });
  });

  it("never hands a sandbox clinic's message to a provider: it is recorded as the development sender does", async () => {
    const clinic = await makeClinic(t.db, { mode: 'sandbox' });
    const sender = new QueueingMessageSender(transport());
    const row = await sender.send(t.db, outgoing(clinic.id), new Date());
    const calls = standIn.requests.length;
    expect(await deliverQueuedMessages(t.db, new Date(), transport(), { ids: [row.id] })).toMatchObject({ sandboxed: 1 });
    expect(standIn.requests.length).toBe(calls);
    expect((await rowsOf([row.id]))[0]).toMatchObject({
      status: 'sent',
      provider: 'development',
      providerMessageId: expect.stringMatching(/^dev_/),
    });
  });

  it("hands a sandbox clinic's staff emails (team and go-live invitations) to the provider like any clinic's", async () => {
    const clinic = await makeClinic(t.db, { mode: 'sandbox' });
    const sender = new QueueingMessageSender(transport());
    const invitation = await sender.send(t.db, outgoing(clinic.id, { kind: 'go_live_invitation', to: 'signer@example.com' }), new Date());
    const welcome = await sender.send(t.db, outgoing(clinic.id), new Date());
    const calls = standIn.requests.length;
    expect(await deliverQueuedMessages(t.db, new Date(), transport(), { ids: [invitation.id, welcome.id] })).toMatchObject({
      sent: 1,
      sandboxed: 1,
    });
    expect(standIn.requests.length).toBe(calls + 1);
    expect(standIn.requests.at(-1)!.body.to).toEqual(['signer@example.com']);
    const rows = await rowsOf([invitation.id, welcome.id]);
    expect(rows.find((r) => r.id === invitation.id)).toMatchObject({ status: 'sent', provider: 'resend' });
    expect(rows.find((r) => r.id === welcome.id)).toMatchObject({ status: 'sent', provider: 'development' });
  });

  it('two runs at once send every row exactly once (rows are claimed with FOR UPDATE SKIP LOCKED)', async () => {
    await setAsideQueued();
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const now = new Date();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await sender.send(t.db, outgoing(clinic.id, { to: `burst${i}@example.com` }), now)).id);
    const before = standIn.emails.length;
    standIn.setLatency(15);
    const reports = await Promise.all([
      deliverQueuedMessages(t.db, now, transport()),
      deliverQueuedMessages(t.db, now, transport()),
    ]).finally(() => standIn.setLatency(0));
    expect(reports[0]!.sent + reports[1]!.sent).toBe(12);
    expect(reports[0]!.sent).toBeGreaterThan(0);
    expect(reports[1]!.sent).toBeGreaterThan(0);
    // Only this test's rows: a row another test queued late (a welcome email sent after its response) may
    // be picked up by these runs too, which is right, but is not what this test counts.
    const delivered = standIn.emails
      .slice(before)
      .map((e) => (e.body.to as string[])[0])
      .filter((to) => to?.startsWith('burst'));
    expect(delivered.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `burst${i}@example.com`).sort());
    const requests = standIn.requests.filter((r) => ids.some((id) => r.headers['idempotency-key'] === `message-${id}`));
    expect(requests).toHaveLength(12);
    expect((await rowsOf(ids)).every((r) => r.status === 'sent')).toBe(true);
  });

  it('leaves rows of a channel without a provider alone; the limit caps one run', async () => {
    await setAsideQueued();
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender(transport());
    const now = new Date();
    const sms = await sender.send(t.db, outgoing(clinic.id, { channel: 'sms', to: '+15550102000' }), now);
    const mails = [await sender.send(t.db, outgoing(clinic.id), now), await sender.send(t.db, outgoing(clinic.id), now)];
    const emailOnly: MessageTransport = { email: new ResendEmailTransport(resendConfig()), sms: null };
    expect(await deliverQueuedMessages(t.db, now, emailOnly, { limit: 1 })).toMatchObject({ sent: 1 });
    expect(await deliverQueuedMessages(t.db, now, emailOnly)).toMatchObject({ sent: 1 });
    expect((await rowsOf(mails.map((m) => m.id))).map((r) => r.status)).toEqual(['sent', 'sent']);
    expect((await rowsOf([sms.id]))[0]!.status).toBe('queued');
    expect(await deliverQueuedMessages(t.db, now, { email: null, sms: null })).toEqual({ sent: 0, failed: 0, retrying: 0, sandboxed: 0 });
  });

  it('a channel without a provider is recorded as failed in production, by the development sender elsewhere', async () => {
    const { clinic } = await makeTenant(t.db);
    const emailOnly: MessageTransport = { email: new ResendEmailTransport(resendConfig()), sms: null };
    const production = await new QueueingMessageSender(emailOnly).send(
      t.db,
      outgoing(clinic.id, { channel: 'sms', to: '+15550102000' }),
      new Date(),
    );
    expect(production.status).toBe('failed');
    expect((await rowsOf([production.id]))[0]).toMatchObject({ provider: 'none', error: 'no SMS provider configured' });
    const development = await new QueueingMessageSender(emailOnly, new DevelopmentMessageSender()).send(
      t.db,
      outgoing(clinic.id, { channel: 'sms', to: '+15550102000' }),
      new Date(),
    );
    expect((await rowsOf([development.id]))[0]).toMatchObject({ status: 'sent', provider: 'development' });
  });
});

describe('POST /api/v1/contacts with the production sender', () => {
  it('queues the welcome email in the transaction and delivers it right after the response', async () => {
    const sender = new QueueingMessageSender({ email: new ResendEmailTransport(resendConfig()), sms: null });
    const app = buildTestApp(t.db, t.databaseUrl, { messaging: sender });
    const { key, clinic } = await makeTenant(t.db);
    const res = await app.request('/api/v1/contacts', { key, body: { firstName: 'Nina', lastName: 'Ng', email: 'Nina@Example.com' } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    await app.flush();
    const [row] = await t.db
      .select()
      .from(messages)
      .where(and(eq(messages.patientId, data.id), eq(messages.kind, 'welcome')));
    expect(row).toMatchObject({ status: 'sent', provider: 'resend', toAddress: 'nina@example.com', error: null });
    const delivered = standIn.emails.find((e) => e.idempotencyKey === `message-${row!.id}`)!;
    expect(delivered.body).toMatchObject({ to: ['nina@example.com'], subject: `Welcome to ${clinic.name}` });
    expect(delivered.body.text).toContain('Hi Nina,');
    expect(row!.providerMessageId).toBe(delivered.id);
  });
});

describe('deliverQueuedMessagesSweep', () => {
  it('does nothing without messaging configuration, and delivers queued rows with it', async () => {
    await t.db.update(messages).set({ status: 'failed', error: 'set aside by a test' }).where(eq(messages.status, 'queued'));
    const { clinic } = await makeTenant(t.db);
    const sender = new QueueingMessageSender({ email: new ResendEmailTransport(resendConfig()), sms: null });
    const row = await sender.send(
      t.db,
      { clinicId: clinic.id, channel: 'email', kind: 'welcome', to: 'sweep@example.com', subject: 'Hi', body: 'Hello' },
      new Date(),
    );
    await deliverQueuedMessagesSweep(t.db, new Date(), t.services);
    const [still] = await t.db.select().from(messages).where(eq(messages.id, row.id));
    expect(still!.status).toBe('queued');

    const config: AppConfig = { ...t.config, messaging: { email: resendConfig(), sms: twilioConfig() } };
    await deliverQueuedMessagesSweep(t.db, new Date(), Object.assign(providersFor(config, {}, t.db), { config }));
    const [sent] = await t.db.select().from(messages).where(eq(messages.id, row.id));
    expect(sent!.status).toBe('sent');
    expect(deliverQueuedMessagesSweep.name).toBe('messageDelivery');
  });
});
