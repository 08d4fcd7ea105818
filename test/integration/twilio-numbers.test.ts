// The Twilio number-provisioning adapter against a local stand-in of its REST API
// (test/tooling/twilio-numbers-stand-in.ts): search and purchase of a toll-free number, release, the
// errors; and activate/release end to end with the clinic's own stored credentials
// (SMS_PROVISIONING=twilio, TWILIO_API_BASE_URL pointing at the stand-in).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsConfigs } from '../../drizzle/schema';
import { ProviderError } from '../../src/platform/providers/errors';
import { TwilioSmsNumbers } from '../../src/platform/providers/sms';
import { withEnv } from '../api/organization/organization-fixtures';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';
import { startTwilioNumbersStandIn, type TwilioNumbersStandIn } from '../tooling/twilio-numbers-stand-in';

const t = useTestApp();
let twilio: TwilioNumbersStandIn;

beforeAll(async () => {
  twilio = await startTwilioNumbersStandIn();
});
afterAll(async () => {
  await twilio?.close();
});

const account = () => ({ accountSid: twilio.accountSid, authToken: twilio.authToken });
const adapter = (baseUrl = twilio.baseUrl) => new TwilioSmsNumbers(baseUrl);
const env = () => ({ SMS_PROVISIONING: 'twilio', TWILIO_API_BASE_URL: twilio.baseUrl });
const kindOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof ProviderError ? error.kind : `other: ${String(error)}`;
  }
};

describe('TwilioSmsNumbers', () => {
  it('searches SMS-capable toll-free numbers, buys the first (basic auth, form body) and releases it', async () => {
    const first = twilio.pool[0]!;
    const bought = await adapter().provisionTollFreeNumber({ clinicId: 'clinic-1', account: account() });
    const [search, purchase] = twilio.requests.slice(-2);
    expect(search).toMatchObject({
      method: 'GET',
      path: `/2010-04-01/Accounts/${twilio.accountSid}/AvailablePhoneNumbers/US/TollFree.json`,
      query: { SmsEnabled: 'true', PageSize: '5' },
    });
    expect(search!.headers.authorization).toBe(`Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`);
    expect(purchase).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${twilio.accountSid}/IncomingPhoneNumbers/TollFree.json`,
      form: { PhoneNumber: first, FriendlyName: 'Brand Admin clinic clinic-1' },
    });
    expect(bought).toEqual({ phoneNumber: first, providerNumberId: expect.stringMatching(/^PN[0-9a-f]{32}$/) });
    expect(twilio.owned.get(bought.providerNumberId)).toBe(first);

    await adapter().releaseNumber({ account: account(), providerNumberId: bought.providerNumberId });
    expect(twilio.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: `/2010-04-01/Accounts/${twilio.accountSid}/IncomingPhoneNumbers/${bought.providerNumberId}.json`,
    });
    expect(twilio.owned.has(bought.providerNumberId)).toBe(false);
    // Releasing a number Twilio no longer has is done already.
    await adapter().releaseNumber({ account: account(), providerNumberId: bought.providerNumberId });
  });

  it('skips numbers someone else bought between the search and the purchase', async () => {
    const listed = twilio.pool.slice(0, 3);
    twilio.takeBeforePurchase(2);
    const bought = await adapter().provisionTollFreeNumber({ clinicId: 'c', account: account() });
    expect(bought.phoneNumber).toBe(listed[2]);
    const attempts = twilio.requests
      .filter((r) => r.method === 'POST')
      .slice(-3)
      .map((r) => r.form.PhoneNumber);
    expect(attempts).toEqual(listed);
  });

  it('maps errors: credentials, no numbers, outages, no answer', async () => {
    expect(await kindOf(adapter().provisionTollFreeNumber({ clinicId: 'c', account: { ...account(), authToken: 'wrong' } }))).toBe(
      'credentials_rejected',
    );
    twilio.failNext(200, { available_phone_numbers: [] });
    expect(await kindOf(adapter().provisionTollFreeNumber({ clinicId: 'c', account: account() }))).toBe('no_numbers');
    twilio.failNext(503, { code: 20503, message: 'Service unavailable', status: 503 });
    expect(await kindOf(adapter().provisionTollFreeNumber({ clinicId: 'c', account: account() }))).toBe('unavailable');
    twilio.failNext(400, { code: 21606, message: 'The From phone number is not a valid, SMS-capable inbound phone number', status: 400 });
    expect(await kindOf(adapter().releaseNumber({ account: account(), providerNumberId: `PN${'0'.repeat(32)}` }))).toBe('refused');
    expect(await kindOf(adapter('http://127.0.0.1:9').provisionTollFreeNumber({ clinicId: 'c', account: account() }))).toBe('unavailable');
    try {
      await adapter().provisionTollFreeNumber({ clinicId: 'c', account: { ...account(), authToken: 'secret-token-value' } });
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-token-value');
    }
  });
});

describe("activate and release through Twilio (the clinic's own stored account)", () => {
  const configure = (key: string, authToken = twilio.authToken) =>
    t.request('/api/v1/organization/sms/twilio', {
      key,
      method: 'PUT',
      body: { accountSid: twilio.accountSid, authToken, phoneNumber: '+14155550123' },
    });

  it('buys the number on the stored account and releases it again', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await configure(key);
    const expected = twilio.pool[0]!;
    const res = await withEnv(t, '/api/v1/organization/sms/activate', { key, method: 'POST', env: env() });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ status: 'active', tollFreeNumber: expected });
    const [row] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(twilio.owned.get(row!.providerNumberId!)).toBe(expected);
    // The decrypted token went to Twilio (basic auth), never into an answer.
    expect(twilio.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
    );

    const released = await withEnv(t, '/api/v1/organization/sms/release', { key, method: 'DELETE', env: env() });
    expect(released.status).toBe(200);
    expect((await released.json()).data.status).toBe('released');
    expect(twilio.owned.has(row!.providerNumberId!)).toBe(false);
  });

  it('a token Twilio refuses is 409 SMS_CREDENTIALS_REJECTED; an outage is 503 with Retry-After; nothing changes', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await configure(key, 'not-the-right-token-000');
    const refused = await withEnv(t, '/api/v1/organization/sms/activate', { key, method: 'POST', env: env() });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body.code).toBe('SMS_CREDENTIALS_REJECTED');
    expect(body.message).not.toContain('not-the-right-token-000');
    await configure(key);
    twilio.failNext(500, { code: 20500, message: 'Internal Server Error', status: 500 });
    const down = await withEnv(t, '/api/v1/organization/sms/activate', { key, method: 'POST', env: env() });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect((await down.json()).code).toBe('SMS_PROVIDER_UNAVAILABLE');
    const [row] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, clinic.id));
    expect(row).toMatchObject({ status: 'configured', providerNumberId: null });
  });

  it('a sandbox clinic gets a development number even with Twilio configured', async () => {
    const { key } = await makeTenant(t.db, { mode: 'sandbox' });
    await configure(key);
    const before = twilio.requests.length;
    const res = await withEnv(t, '/api/v1/organization/sms/activate', { key, method: 'POST', env: env() });
    expect(res.status).toBe(200);
    expect(twilio.requests.length).toBe(before);
  });
});
