// The specification's paths include two pairs that one URL can match (Redocly's no-ambiguous-paths):
// /clinic/check-slug/{slug} beside /clinic/{id}/upload-logo, and /team/invitations/{invitationId} beside
// /team/{userId}/role. They stay as the specification writes them; they are unambiguous because their
// methods differ. Checked here on the whole document (no other such pair, no shared method, each
// operation says so in x-path-overlap) and over HTTP (the colliding URLs reach the operation of their
// method). docs/api-conventions.md, "Overlapping paths".
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app';
import { openApiDocument } from '../../../src/platform/openapi/document';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { IMAGES, imageForm } from '../../helpers/images';

const t = useTestApp();
const document = openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services'))));
const paths = (document.paths ?? {}) as Record<string, Record<string, Record<string, unknown> | undefined>>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const isParam = (segment: string) => segment.startsWith('{');

/** Pairs of paths one URL can match where each has a parameter where the other has a literal (Redocly's rule). */
function overlappingPairs(paths: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [i, a] of paths.entries()) {
    for (const b of paths.slice(i + 1)) {
      const [sa, sb] = [a.split('/'), b.split('/')];
      if (sa.length !== sb.length) continue;
      const match = sa.every((s, k) => s === sb[k] || isParam(s) || isParam(sb[k]!));
      const aWider = sa.some((s, k) => isParam(s) && !isParam(sb[k]!));
      const bWider = sb.some((s, k) => isParam(s) && !isParam(sa[k]!));
      if (match && aWider && bWider) pairs.push([a, b]);
    }
  }
  return pairs;
}

const methodsOf = (path: string) => METHODS.filter((m) => paths[path]?.[m]);

describe('overlapping paths', () => {
  const pairs = overlappingPairs(Object.keys(paths));

  it("are only the specification's two pairs, whose methods differ, each operation naming the other", () => {
    expect(pairs.map((pair) => pair.join(' ~ ')).sort()).toEqual([
      '/api/v1/clinic/check-slug/{slug} ~ /api/v1/clinic/{id}/upload-logo',
      '/api/v1/team/invitations/{invitationId} ~ /api/v1/team/{userId}/role',
    ]);
    for (const [a, b] of pairs) {
      const shared = methodsOf(a).filter((m) => methodsOf(b).includes(m));
      expect(shared, `${a} and ${b} share a method: a request could match both`).toEqual([]);
      for (const [path, other] of [
        [a, b],
        [b, a],
      ] as const) {
        for (const method of methodsOf(path)) {
          const operation = paths[path]?.[method] ?? {};
          expect(operation['x-path-overlap'], `${method} ${path}`).toMatchObject({ path: other, methods: methodsOf(other) });
          expect(operation.description, `${method} ${path}`).toContain(other.replace('/api/v1', ''));
        }
      }
    }
  });

  it('route /clinic/check-slug/upload-logo by method: GET checks the slug "upload-logo", POST uploads the logo', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const check = await t.request('/api/v1/clinic/check-slug/upload-logo', { key });
    expect(check.status).toBe(200);
    expect(await check.json()).toMatchObject({ success: true, available: true });

    const form = imageForm(IMAGES.png, { field: 'logo', filename: 'logo.png', type: 'image/png' });
    const upload = await t.send('/api/v1/clinic/check-slug/upload-logo', { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(upload.status).toBe(200);
    expect((await upload.json()).data).toMatchObject({ clinicId: clinic.id, upload: { purpose: 'clinic_logo' } });
  });

  it('route /team/invitations/role by method: PATCH is the role change of a member "invitations", DELETE cancels an invitation "role"', async () => {
    const { key } = await makeTenant(t.db);
    // The role change validates its body first: only that operation has a body.role field to refuse.
    const badRole = await t.request('/api/v1/team/invitations/role', { method: 'PATCH', key, body: { role: 'owner' } });
    expect(badRole.status).toBe(400);
    expect((await badRole.json()).errors).toEqual([expect.objectContaining({ field: 'body.role' })]);
    const role = await t.request('/api/v1/team/invitations/role', { method: 'PATCH', key, body: { role: 'admin' } });
    expect(role.status).toBe(404);
    const roleBody = await role.json();

    const cancel = await t.request('/api/v1/team/invitations/role', { method: 'DELETE', key });
    expect(cancel.status).toBe(404);
    const cancelBody = await cancel.json();
    // Each names what it looked for: a team member, an invitation.
    expect(roleBody.message).not.toBe(cancelBody.message);
    expect(`${roleBody.message} | ${cancelBody.message}`).toMatch(/member.*\|.*invitation/i);
  });
});
