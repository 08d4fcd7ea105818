// Template sync (one, all, status) and titration-protocol attachments.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { programProducts, programs, programTemplateProducts, programTemplates, programTitrationProtocols } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makeProgram, makeTemplate, makeTitrationProtocol } from '../../helpers/program-fixtures';

const t = useTestApp();
const UNKNOWN = '7d7f3a52-5c4e-4c1f-9a55-1b2b3c4d5e6f';

async function expectSame404(requests: (() => Promise<Response>)[]) {
  const bodies = [];
  for (const send of requests) {
    const res = await send();
    expect(res.status).toBe(404);
    bodies.push(await res.json());
  }
  for (const body of bodies) expect(body).toEqual(bodies[0]);
}

/** A template at version 2 and a program derived from it at version 1 with a clinic override and a product of its own. */
async function syncWorld() {
  const tenant = await makeTenant(t.db);
  const stranger = await makeTenant(t.db);
  const kept = await makeGlobalProduct(t.db, { name: 'Kept' });
  const dropped = await makeGlobalProduct(t.db, { name: 'Dropped' });
  const own = await makeGlobalProduct(t.db, { name: 'Own' });
  const added = await makeGlobalProduct(t.db, { name: 'Added' });
  const template = await makeTemplate(
    t.db,
    [
      { globalProductId: kept.id, programBaseFeeCents: 5_000 },
      { globalProductId: added.id, programBaseFeeCents: 2_000 },
    ],
    { version: 2 },
  );
  const program = await makeProgram(t.db, tenant.clinic.id, { name: 'Derived', templateId: template.id, templateVersion: 1 }, [
    { globalProductId: kept.id, programBaseFeeCents: 4_000, clinicFeeOverrideCents: 9_000, linkSource: 'template' },
    { globalProductId: dropped.id, programBaseFeeCents: 1_000, linkSource: 'template' },
    { globalProductId: own.id, programBaseFeeCents: 3_000, linkSource: 'program' },
  ]);
  const strangerProgram = await makeProgram(t.db, stranger.clinic.id, { templateId: template.id, templateVersion: 1 });
  return { ...tenant, stranger, kept, dropped, own, added, template, program, strangerProgram };
}

describe('sync', () => {
  it('GET sync-status says the program is behind its template', async () => {
    const w = await syncWorld();
    const res = await t.request(`/api/v1/programs/${w.program.id}/sync-status`, { key: w.key });
    expect((await res.json()).data).toEqual({
      programId: w.program.id,
      templateId: w.template.id,
      templateVersion: 1,
      latestTemplateVersion: 2,
      isBehind: true,
    });
    const plain = await makeProgram(t.db, w.clinic.id);
    expect((await (await t.request(`/api/v1/programs/${plain.id}/sync-status`, { key: w.key })).json()).data).toEqual({
      programId: plain.id,
      templateId: null,
      templateVersion: null,
      latestTemplateVersion: null,
      isBehind: false,
    });
  });

  it('POST sync re-applies products and base fees, keeps clinic overrides and own products, sets the version', async () => {
    const w = await syncWorld();
    const res = await t.request(`/api/v1/programs/${w.program.id}/sync`, { key: w.key, method: 'POST' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      programId: w.program.id,
      templateId: w.template.id,
      templateVersion: 2,
      latestTemplateVersion: 2,
      isBehind: false,
      addedProducts: 1,
      updatedProducts: 1,
      removedProducts: 1,
    });
    const pricing = (await (await t.request(`/api/v1/programs/${w.program.id}/products`, { key: w.key })).json()).data.products;
    const byId = Object.fromEntries(pricing.map((p: { globalProductId: string }) => [p.globalProductId, p]));
    expect(Object.keys(byId).sort()).toEqual([w.kept.id, w.own.id, w.added.id].sort());
    expect(byId[w.kept.id]).toMatchObject({ programBaseFee: 50, clinicProgramFee: 90, feeSource: 'clinic_override' });
    expect(byId[w.added.id]).toMatchObject({ programBaseFee: 20, linkSource: 'template' });
    expect(byId[w.own.id]).toMatchObject({ programBaseFee: 30, linkSource: 'program' });
    expect((await (await t.request(`/api/v1/programs/${w.program.id}/sync-status`, { key: w.key })).json()).data.isBehind).toBe(false);
  });

  it('POST sync answers 409 for a program without a template', async () => {
    const w = await syncWorld();
    const plain = await makeProgram(t.db, w.clinic.id);
    const res = await t.request(`/api/v1/programs/${plain.id}/sync`, { key: w.key, method: 'POST' });
    expect(res.status).toBe(409);
  });

  it("POST sync-all syncs every derived program of the clinic that is not retired, and only the clinic's", async () => {
    const w = await syncWorld();
    const second = await makeProgram(t.db, w.clinic.id, { templateId: w.template.id, templateVersion: 2 });
    await makeProgram(t.db, w.clinic.id, { templateId: w.template.id, templateVersion: 1, state: 'retired' });
    await makeProgram(t.db, w.clinic.id);
    await t.db.update(programTemplates).set({ version: 3 }).where(eq(programTemplates.id, w.template.id));
    await t.db
      .update(programTemplateProducts)
      .set({ programBaseFeeCents: 6_000 })
      .where(and(eq(programTemplateProducts.templateId, w.template.id), eq(programTemplateProducts.globalProductId, w.kept.id)));
    const res = await t.request('/api/v1/programs/sync-all', { key: w.key, method: 'POST' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.synced).toBe(2);
    expect(data.programs.map((p: { programId: string }) => p.programId).sort()).toEqual([w.program.id, second.id].sort());
    expect(data.programs.every((p: { templateVersion: number }) => p.templateVersion === 3)).toBe(true);
    const [secondKept] = await t.db
      .select()
      .from(programProducts)
      .where(and(eq(programProducts.programId, second.id), eq(programProducts.globalProductId, w.kept.id)));
    expect(secondKept!.programBaseFeeCents).toBe(6_000);
    const [theirs] = await t.db.select().from(programs).where(eq(programs.id, w.strangerProgram.id));
    expect(theirs!.templateVersion).toBe(1);
  });

  it('404s for another clinic, unknown and malformed ids; writes need the write scope', async () => {
    const w = await syncWorld();
    const ids = [w.strangerProgram.id, UNKNOWN, 'not-a-uuid'];
    await expectSame404(ids.map((id) => () => t.request(`/api/v1/programs/${id}/sync-status`, { key: w.key })));
    await expectSame404(ids.map((id) => () => t.request(`/api/v1/programs/${id}/sync`, { key: w.key, method: 'POST' })));
    const readOnly = await makeKey(t.db, w.clinic.id, { scopes: ['read'] });
    expect((await t.request(`/api/v1/programs/${w.program.id}/sync`, { key: readOnly.raw, method: 'POST' })).status).toBe(403);
    expect((await t.request('/api/v1/programs/sync-all', { key: readOnly.raw, method: 'POST' })).status).toBe(403);
  });
});

describe('titration protocols', () => {
  async function titrationWorld() {
    const tenant = await makeTenant(t.db);
    const stranger = await makeTenant(t.db);
    const protocol = await makeTitrationProtocol(t.db);
    const program = await makeProgram(t.db, tenant.clinic.id);
    const strangerProgram = await makeProgram(t.db, stranger.clinic.id);
    const [strangerAttachment] = await t.db
      .insert(programTitrationProtocols)
      .values({ clinicId: stranger.clinic.id, programId: strangerProgram.id, titrationProtocolId: protocol.id })
      .returning();
    return { ...tenant, stranger, protocol, program, strangerProgram, strangerAttachment: strangerAttachment! };
  }

  it('attaches, lists by position, updates and detaches', async () => {
    const w = await titrationWorld();
    const base = `/api/v1/programs/${w.program.id}/titration-protocols`;
    const first = await t.request(base, {
      key: w.key,
      body: { titrationProtocolId: w.protocol.id, flatFee: 25.5, allowedBillingMonths: [3, 1], position: 5 },
    });
    expect(first.status).toBe(201);
    const attached = (await first.json()).data;
    expect(attached).toMatchObject({
      programId: w.program.id,
      titrationProtocolId: w.protocol.id,
      flatFee: 25.5,
      allowedBillingMonths: [1, 3],
      position: 5,
      titrationProtocol: { id: w.protocol.id, name: w.protocol.name, maxLevel: 2 },
    });
    const second = (await (await t.request(base, { key: w.key, body: { titrationProtocolId: w.protocol.id } })).json()).data;
    expect(second).toMatchObject({ flatFee: 0, allowedBillingMonths: [1], position: 6 });
    const early = (await (await t.request(base, { key: w.key, body: { titrationProtocolId: w.protocol.id, position: 0 } })).json()).data;

    const listed = (await (await t.request(base, { key: w.key })).json()).data;
    expect(listed.map((a: { id: string }) => a.id)).toEqual([early.id, attached.id, second.id]);

    const updated = await t.request(`${base}/${attached.id}`, {
      key: w.key,
      method: 'PUT',
      body: { flatFee: 30, allowedBillingMonths: [12, 6], position: 9 },
    });
    expect(updated.status).toBe(200);
    expect((await updated.json()).data).toMatchObject({ id: attached.id, flatFee: 30, allowedBillingMonths: [6, 12], position: 9 });

    const detached = await t.request(`${base}/${attached.id}`, { key: w.key, method: 'DELETE' });
    expect(detached.status).toBe(200);
    expect((await detached.json()).data).toMatchObject({ id: attached.id, flatFee: 30 });
    expect((await (await t.request(base, { key: w.key })).json()).data).toHaveLength(2);
    expect((await t.request(`${base}/${attached.id}`, { key: w.key, method: 'DELETE' })).status).toBe(404);
  });

  it('refuses an unknown protocol and bad fields with a 400 naming the field', async () => {
    const w = await titrationWorld();
    const base = `/api/v1/programs/${w.program.id}/titration-protocols`;
    const cases: [unknown, string][] = [
      [{ titrationProtocolId: UNKNOWN }, 'body.titrationProtocolId'],
      [{ titrationProtocolId: 'nope' }, 'body.titrationProtocolId'],
      [{}, 'body.titrationProtocolId'],
      [{ titrationProtocolId: w.protocol.id, flatFee: -1 }, 'body.flatFee'],
      [{ titrationProtocolId: w.protocol.id, flatFee: 1.005 }, 'body.flatFee'],
      [{ titrationProtocolId: w.protocol.id, allowedBillingMonths: [0] }, 'body.allowedBillingMonths'],
      [{ titrationProtocolId: w.protocol.id, allowedBillingMonths: [13] }, 'body.allowedBillingMonths'],
      [{ titrationProtocolId: w.protocol.id, allowedBillingMonths: [1.5] }, 'body.allowedBillingMonths'],
      [{ titrationProtocolId: w.protocol.id, allowedBillingMonths: [1, 1] }, 'body.allowedBillingMonths'],
      [{ titrationProtocolId: w.protocol.id, allowedBillingMonths: [] }, 'body.allowedBillingMonths'],
      [{ titrationProtocolId: w.protocol.id, position: 1.5 }, 'body.position'],
      [{ titrationProtocolId: w.protocol.id, position: -1 }, 'body.position'],
      [{ titrationProtocolId: w.protocol.id, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request(base, { key: w.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    const attached = (await (await t.request(base, { key: w.key, body: { titrationProtocolId: w.protocol.id } })).json()).data;
    for (const body of [{ flatFee: 'x' }, { allowedBillingMonths: [0] }, { position: 'first' }, { titrationProtocolId: w.protocol.id }]) {
      const res = await t.request(`${base}/${attached.id}`, { key: w.key, method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("404s for another clinic program, unknown and malformed ids, and another program's attachment; writes need the write scope", async () => {
    const w = await titrationWorld();
    const ids = [w.strangerProgram.id, UNKNOWN, 'not-a-uuid'];
    await expectSame404(ids.map((id) => () => t.request(`/api/v1/programs/${id}/titration-protocols`, { key: w.key })));
    await expectSame404(
      ids.map(
        (id) => () => t.request(`/api/v1/programs/${id}/titration-protocols`, { key: w.key, body: { titrationProtocolId: w.protocol.id } }),
      ),
    );
    const own = (
      await (
        await t.request(`/api/v1/programs/${w.program.id}/titration-protocols`, {
          key: w.key,
          body: { titrationProtocolId: w.protocol.id },
        })
      ).json()
    ).data;
    const pairs: [string, string][] = [
      [w.strangerProgram.id, w.strangerAttachment.id],
      [w.program.id, w.strangerAttachment.id],
      [UNKNOWN, own.id],
      ['x', own.id],
      [w.program.id, UNKNOWN],
      [w.program.id, 'x'],
    ];
    for (const method of ['PUT', 'DELETE']) {
      await expectSame404(
        pairs.map(
          ([id, attachmentId]) =>
            () =>
              t.request(`/api/v1/programs/${id}/titration-protocols/${attachmentId}`, {
                key: w.key,
                method,
                ...(method === 'PUT' ? { body: { position: 1 } } : {}),
              }),
        ),
      );
    }
    expect(
      await t.db.select().from(programTitrationProtocols).where(eq(programTitrationProtocols.id, w.strangerAttachment.id)),
    ).toHaveLength(1);
    const readOnly = await makeKey(t.db, w.clinic.id, { scopes: ['read'] });
    expect(
      (
        await t.request(`/api/v1/programs/${w.program.id}/titration-protocols`, {
          key: readOnly.raw,
          body: { titrationProtocolId: w.protocol.id },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await t.request(`/api/v1/programs/${w.program.id}/titration-protocols/${own.id}`, {
          key: readOnly.raw,
          method: 'PUT',
          body: { position: 1 },
        })
      ).status,
    ).toBe(403);
    expect(
      (await t.request(`/api/v1/programs/${w.program.id}/titration-protocols/${own.id}`, { key: readOnly.raw, method: 'DELETE' })).status,
    ).toBe(403);
    expect((await t.request(`/api/v1/programs/${w.program.id}/titration-protocols`, { key: readOnly.raw })).status).toBe(200);
  });
});
