// The SMS provider account and its toll-free number through the development number provider
// (docs/organization.md, "SMS provider"): the {provider-path} segment, the token sealed and never
// returned, status with the free tier, activate and release.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages, smsConfigs } from '../../../drizzle/schema';
import { SMS_FREE_TIER_MESSAGES_PER_MONTH } from '../../../src/modules/organization/organization/sms/schemas';
import { decryptSmsAuthToken } from '../../../src/modules/organization/organization/sms/service';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const TOKEN = 'f00dfacecafebeef0123456789abcdef';
const valid = { accountSid: SID, authToken: TOKEN, phoneNumber: '+14155550123' };

const put = (key: string, body: unknown, provider = 'twilio') =>
  t.request(`/api/v1/organization/sms/${provider}`, { key, method: 'PUT', body });
const get = (key: string, provider = 'twilio') => t.request(`/api/v1/organization/sms/${provider}`, { key });
const del = (key: string, provider = 'twilio') => t.request(`/api/v1/organization/sms/${provider}`, { key, method: 'DELETE' });
const status = (key: string) => t.request('/api/v1/organization/sms/status', { key });
const activate = (key: string) => t.request('/api/v1/organization/sms/activate', { key, method: 'POST' });
const release = (key: string) => t.request('/api/v1/organization/sms/release', { key, method: 'DELETE' });

describe('GET/PUT/DELETE /api/v1/organization/sms/{provider-path}', () => {
  it('stores the account with the token sealed; GET shows the SID and number only; the token appears in no answer', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const empty = await get(key);
    expect(empty.status).toBe(200);
    expect((await empty.json()).data).toEqual({
      provider: 'twilio',
      configured: false,
      accountSid: null,
      phoneNumber: null,
      status: 'not_configured',
      activatedAt: null,
      releasedAt: null,
      updatedAt: null,
    });

    const saved = await put(key, valid);
    expect(saved.status).toBe(200);
    const savedText = await saved.text();
    expect(savedText).not.toContain(TOKEN);
    expect(JSON.parse(savedText).data).toMatchObject({
      provider: 'twilio',
      configured: true,
      accountSid: SID,
      phoneNumber: '+14155550123',
      status: 'configured',
    });

    const [row] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(row!.encryptedAuthToken).not.toContain(TOKEN);
    expect(await decryptSmsAuthToken(row!.encryptedAuthToken, clinic.id, t.config.secretKeys)).toBe(TOKEN);
    // Bound to the clinic: the same ciphertext does not open for another one.
    await expect(decryptSmsAuthToken(row!.encryptedAuthToken, crypto.randomUUID(), t.config.secretKeys)).rejects.toThrow();

    for (const res of [
      await get(key),
      await status(key),
      await t.request('/api/v1/organization', { key }),
      await activate(key),
      await get(key),
      await status(key),
    ]) {
      const text = await res.text();
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(row!.encryptedAuthToken);
      expect(text.toLowerCase()).not.toContain('authtoken');
    }
  });

  it('accepts only twilio as the provider-path (case-insensitive); any other name is the 404 of an unknown path', async () => {
    const { key } = await makeTenant(t.db);
    expect((await get(key, 'Twilio')).status).toBe(200);
    for (const provider of ['vonage', 'plivo', 'twilio2', 'x'.repeat(300)]) {
      for (const res of [await get(key, provider), await put(key, valid, provider), await del(key, provider)]) {
        expect(res.status, provider).toBe(404);
        expect((await res.json()).message).toBe('SMS provider not found');
      }
    }
  });

  it('validates the body strictly (SID format, E.164, token) with 400 naming the field', async () => {
    const { key } = await makeTenant(t.db);
    const cases: [unknown, string][] = [
      [{ ...valid, accountSid: 'AC123' }, 'body.accountSid'],
      [{ ...valid, accountSid: `XX${'0'.repeat(32)}` }, 'body.accountSid'],
      [{ ...valid, accountSid: `AC${'g'.repeat(32)}` }, 'body.accountSid'],
      [{ ...valid, phoneNumber: '4155550123' }, 'body.phoneNumber'],
      [{ ...valid, phoneNumber: '+0155550123' }, 'body.phoneNumber'],
      [{ ...valid, phoneNumber: '+1 415 555 0123' }, 'body.phoneNumber'],
      [{ ...valid, authToken: 'short' }, 'body.authToken'],
      [{ ...valid, authToken: 'has spaces in the token 0123456' }, 'body.authToken'],
      [{ ...valid, authToken: 12345678901234 }, 'body.authToken'],
      [{ accountSid: SID, phoneNumber: '+14155550123' }, 'body.authToken'],
      [{ ...valid, fromNumber: '+14155550123' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await put(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
  });

  it('DELETE clears the config (404 when none; 409 while a number is active)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    expect((await del(key)).status).toBe(404);
    await put(key, valid);
    await activate(key);
    const refused = await del(key);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('SMS_NUMBER_ACTIVE');
    await release(key);
    const cleared = await del(key);
    expect(cleared.status).toBe(200);
    expect((await cleared.json()).data).toMatchObject({ configured: false, status: 'not_configured' });
    expect(await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id))).toEqual([]);
  });

  it('while a number is active, PUT may only rotate the token (same SID, the active number)', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await put(key, valid);
    const { data } = await (await activate(key)).json();
    const other = await put(key, { ...valid, accountSid: `AC${'f'.repeat(32)}`, phoneNumber: data.tollFreeNumber });
    expect(other.status).toBe(409);
    expect((await other.json()).code).toBe('SMS_NUMBER_ACTIVE');
    expect((await put(key, valid)).status).toBe(409);
    const rotated = await put(key, { ...valid, authToken: 'a-new-token-0123456789', phoneNumber: data.tollFreeNumber });
    expect(rotated.status).toBe(200);
    expect((await rotated.json()).data).toMatchObject({ status: 'active', phoneNumber: data.tollFreeNumber });
    const [row] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(await decryptSmsAuthToken(row!.encryptedAuthToken, clinic.id, t.config.secretKeys)).toBe('a-new-token-0123456789');
  });
});

describe('status, activate and release', () => {
  it('activate needs a config (409), provisions a toll-free number, refuses a second (409); release frees it; activate again', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const none = await activate(key);
    expect(none.status).toBe(409);
    expect((await none.json()).code).toBe('SMS_NOT_CONFIGURED');
    const noNumber = await release(key);
    expect(noNumber.status).toBe(409);
    expect((await noNumber.json()).code).toBe('SMS_NUMBER_NOT_ACTIVE');

    await put(key, valid);
    expect((await (await status(key)).json()).data).toMatchObject({ provider: 'twilio', status: 'configured', tollFreeNumber: null });
    const res = await activate(key);
    expect(res.status).toBe(200);
    const active = (await res.json()).data;
    expect(active).toMatchObject({
      provider: 'twilio',
      status: 'active',
      tollFreeNumber: expect.stringMatching(/^\+18(00|33|44|55|66|77|88)555\d{4}$/),
      activatedAt: expect.any(String),
    });
    const [row] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(row).toMatchObject({
      status: 'active',
      phoneNumber: active.tollFreeNumber,
      providerNumberId: expect.stringMatching(/^PN[0-9a-f]{32}$/),
    });
    expect((await (await get(key)).json()).data).toMatchObject({ status: 'active', phoneNumber: active.tollFreeNumber });

    const twice = await activate(key);
    expect(twice.status).toBe(409);
    expect((await twice.json()).code).toBe('SMS_NUMBER_ACTIVE');

    const released = await release(key);
    expect(released.status).toBe(200);
    expect((await released.json()).data).toMatchObject({ status: 'released', tollFreeNumber: null, releasedAt: expect.any(String) });
    const [after] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(after).toMatchObject({ status: 'released', phoneNumber: null, providerNumberId: null, accountSid: SID });
    expect((await release(key)).status).toBe(409);

    const reactivated = await activate(key);
    expect(reactivated.status).toBe(200);
    expect((await reactivated.json()).data.status).toBe('active');
  });

  it("counts this month's SMS (queued or sent, not failed, not email, not other clinics) against the free tier", async () => {
    const { clinic, key } = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    t.clock.freezeAt(Date.parse(`${new Date().toISOString().slice(0, 7)}-15T12:00:00Z`));
    const now = new Date(t.clock.now());
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0, 12));
    const row = (values: Partial<typeof messages.$inferInsert>) => ({
      clinicId: clinic.id,
      channel: 'sms' as const,
      kind: 'sequence',
      toAddress: '+14155550199',
      body: 'Hi',
      provider: 'development',
      status: 'sent' as const,
      createdAt: now,
      ...values,
    });
    await t.db
      .insert(messages)
      .values([
        row({}),
        row({ status: 'queued' }),
        row({ status: 'failed' }),
        row({ channel: 'email', toAddress: 'a@b.co' }),
        row({ createdAt: lastMonth }),
        row({ clinicId: other.clinic.id }),
      ]);
    const res = await status(key);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(data).toEqual({
      provider: null,
      status: 'not_configured',
      tollFreeNumber: null,
      activatedAt: null,
      releasedAt: null,
      usage: {
        periodStart: start.toISOString(),
        periodEnd: end.toISOString(),
        messagesSent: 2,
        freeTierLimit: SMS_FREE_TIER_MESSAGES_PER_MONTH,
        freeTierRemaining: SMS_FREE_TIER_MESSAGES_PER_MONTH - 2,
        billableMessages: 0,
      },
    });
  });

  it('reports billable messages beyond the free tier', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const extra = 3;
    await t.db.insert(messages).values(
      Array.from({ length: SMS_FREE_TIER_MESSAGES_PER_MONTH + extra }, () => ({
        clinicId: clinic.id,
        channel: 'sms' as const,
        kind: 'sequence',
        toAddress: '+14155550199',
        body: 'Hi',
        provider: 'development',
        status: 'sent' as const,
      })),
    );
    const { data } = await (await status(key)).json();
    expect(data.usage).toMatchObject({
      messagesSent: SMS_FREE_TIER_MESSAGES_PER_MONTH + extra,
      freeTierRemaining: 0,
      billableMessages: extra,
    });
  });

  it('each clinic sees and changes only its own config and number', async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    await put(a.key, valid);
    await activate(a.key);
    expect((await (await get(b.key)).json()).data.configured).toBe(false);
    expect((await (await status(b.key)).json()).data.status).toBe('not_configured');
    expect((await release(b.key)).status).toBe(409);
    expect((await del(b.key)).status).toBe(404);
    expect((await (await status(a.key)).json()).data.status).toBe('active');
  });

  it('needs the write scope to change anything; a read key may read', async () => {
    const { clinic } = await makeTenant(t.db);
    const readOnly = (await makeKey(t.db, clinic.id, { scopes: ['read'] })).raw;
    for (const res of [await put(readOnly, valid), await del(readOnly), await activate(readOnly), await release(readOnly)]) {
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe('INSUFFICIENT_SCOPE');
    }
    expect((await get(readOnly)).status).toBe(200);
    expect((await status(readOnly)).status).toBe(200);
  });
});
