// The legacy treatment operations are deprecated (docs/api-conventions.md, "Deprecation policy"): each
// of the 8 answers, whatever the outcome once the key is accepted (success, 403 with a read key on a write,
// 400, 404 for another clinic's id), with Deprecation and Sunset; the rest of the API sends neither. A 401
// (no or a bad key) and a 429 are answered before the operation is known, without them.
import { describe, expect, it } from 'vitest';
import { deprecationHeader, LEGACY_TREATMENTS, sunsetHeader } from '../../../src/platform/http/deprecation';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();
const DEPRECATION = '@1796083200'; // 2026-12-01T00:00:00Z
const SUNSET = 'Wed, 01 Dec 2027 00:00:00 GMT';

const expectDeprecated = (res: Response, what: string) => {
  expect(res.headers.get('Deprecation'), what).toBe(DEPRECATION);
  expect(res.headers.get('Sunset'), what).toBe(SUNSET);
};

describe('the deprecated treatment operations', () => {
  it('formats the schedule as RFC 9745 and RFC 8594 write it', () => {
    expect(deprecationHeader(LEGACY_TREATMENTS)).toBe(DEPRECATION);
    expect(sunsetHeader(LEGACY_TREATMENTS)).toBe(SUNSET);
  });

  it('send Deprecation and Sunset on successes and on the errors of the operation', async () => {
    const mine = await makeTenant(t.db);
    const other = await makeTenant(t.db);
    const readKey = (await makeKey(t.db, mine.clinic.id, { scopes: ['read'] })).raw;
    const created = await t.request('/api/v1/treatments', { key: mine.key, body: { name: 'Weight care', description: 'x' } });
    expect(created.status).toBe(201);
    expectDeprecated(created, 'POST /treatments 201');
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const foreign = await t.request('/api/v1/treatments', { key: other.key, body: { name: 'Other', description: 'y' } });
    const foreignId = ((await foreign.json()) as { data: { id: string } }).data.id;

    // Called in order: the selection is added before it is removed.
    const cases: [string, () => Promise<Response>, number][] = [
      ['GET /treatments', () => t.request('/api/v1/treatments', { key: mine.key }), 200],
      ['GET /treatments/{id}', () => t.request(`/api/v1/treatments/${id}`, { key: mine.key }), 200],
      ["GET /treatments/{another clinic's id}", () => t.request(`/api/v1/treatments/${foreignId}`, { key: mine.key }), 404],
      [
        'PUT /treatments/{id}',
        () => t.request(`/api/v1/treatments/${id}`, { key: mine.key, method: 'PUT', body: { name: 'Renamed' } }),
        200,
      ],
      [
        'PUT /treatments/{id} bad input',
        () => t.request(`/api/v1/treatments/${id}`, { key: mine.key, method: 'PUT', body: { name: 7 } }),
        400,
      ],
      ['GET /brand-treatments', () => t.request('/api/v1/brand-treatments', { key: mine.key }), 200],
      ['POST /brand-treatments', () => t.request('/api/v1/brand-treatments', { key: mine.key, body: { treatmentId: id } }), 201],
      ['POST /brand-treatments read key', () => t.request('/api/v1/brand-treatments', { key: readKey, body: { treatmentId: id } }), 403],
      [
        'DELETE /brand-treatments',
        () => t.request('/api/v1/brand-treatments', { key: mine.key, method: 'DELETE', body: { treatmentId: id } }),
        200,
      ],
      [
        'POST /treatment/{id}/upload-logo',
        () => t.request(`/api/v1/treatment/${id}/upload-logo?removeLogo=true`, { key: mine.key, method: 'POST' }),
        200,
      ],
    ];
    for (const [what, pending, status] of cases) {
      const res = await pending();
      expect(res.status, what).toBe(status);
      expectDeprecated(res, what);
    }
    const withoutKey = await t.request('/api/v1/treatments');
    expect(withoutKey.status).toBe(401);
    expect(withoutKey.headers.get('Deprecation')).toBeNull();
    const notDeprecated = await t.request('/api/v1/programs', { key: mine.key });
    expect(notDeprecated.headers.get('Deprecation')).toBeNull();
    expect(notDeprecated.headers.get('Sunset')).toBeNull();
  });
});
