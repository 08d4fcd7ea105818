// The re-seal of a root rotation over real rows (docs/secrets.md): values sealed under root A (and in
// the legacy format) are moved to root B in batches, after which B alone opens every one of them.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { crmConnections, smsConfigs } from '../../../drizzle/schema';
import { decryptCrmCredentials, encryptCrmCredentials } from '../../../src/modules/crm/connection/credentials';
import { decryptSmsAuthToken } from '../../../src/modules/organization/organization/sms/service';
import { resealAll } from '../../../src/platform/crypto/reseal';
import { bytesToBase64, encrypt, keyIdOf } from '../../../src/platform/crypto/secret-box';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();
const A = bytesToBase64(new Uint8Array(32).map((_, i) => i + 11));
const B = bytesToBase64(new Uint8Array(32).map((_, i) => 90 + i));

describe('re-seal after a root rotation', () => {
  it('moves rows sealed under the previous root and legacy rows to the current root, in batches; then the previous root can go', async () => {
    const tenants = await Promise.all([makeTenant(t.db), makeTenant(t.db), makeTenant(t.db)]);
    for (const { clinic } of tenants) {
      await t.db.insert(crmConnections).values({
        clinicId: clinic.id,
        provider: 'hubspot',
        authType: 'api_key',
        encryptedCredentials: await encryptCrmCredentials({ apiKey: `key-${clinic.id}` }, clinic.id, { current: A }),
      });
    }
    // A row of the legacy format: the root itself as the key, no key id.
    const legacyClinic = tenants[0]!.clinic.id;
    await t.db.insert(smsConfigs).values({
      clinicId: legacyClinic,
      provider: 'twilio',
      accountSid: 'AC1',
      encryptedAuthToken: await encrypt('legacy-token', A, `sms-auth-token:${legacyClinic}`),
    });

    const rotating = { current: B, previous: A };
    for (const { clinic } of tenants) {
      const [row] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
      expect(await decryptCrmCredentials(row!.encryptedCredentials, clinic.id, rotating)).toEqual({ apiKey: `key-${clinic.id}` });
    }

    const counts = await resealAll(t.db, rotating, { batchSize: 2 });
    expect(counts['crm_connections.encrypted_credentials']!.failed).toBe(0);
    expect(counts['crm_connections.encrypted_credentials']!.resealed).toBeGreaterThanOrEqual(3);
    expect(counts['sms_configs.encrypted_auth_token']!.resealed).toBeGreaterThanOrEqual(1);

    const kidB = await keyIdOf(B);
    for (const { clinic } of tenants) {
      const [row] = await t.db.select().from(crmConnections).where(eq(crmConnections.clinicId, clinic.id));
      expect(row!.encryptedCredentials.startsWith(`v2:${kidB}:`)).toBe(true);
      expect(await decryptCrmCredentials(row!.encryptedCredentials, clinic.id, { current: B })).toEqual({ apiKey: `key-${clinic.id}` });
    }
    const [sms] = await t.db.select().from(smsConfigs).where(eq(smsConfigs.clinicId, legacyClinic));
    expect(await decryptSmsAuthToken(sms!.encryptedAuthToken, legacyClinic, { current: B })).toBe('legacy-token');

    // A second run finds nothing left to move under these clinics.
    const again = await resealAll(t.db, rotating, { batchSize: 2 });
    expect(again['crm_connections.encrypted_credentials']!.failed).toBe(0);
  });
});
