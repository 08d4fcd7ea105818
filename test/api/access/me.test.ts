import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

describe('GET /api/v1/me', () => {
  it('describes the calling key', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const res = await t.request('/api/v1/me', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      success: true,
      message: 'OK',
      data: {
        clinicId: clinic.id,
        keyName: keyRow.name,
        keyPrefix: keyRow.keyPrefix,
        scopes: ['read', 'write'],
        kind: 'secret',
        isSandbox: false,
        rateLimitPerMin: null,
      },
    });
  });
});
