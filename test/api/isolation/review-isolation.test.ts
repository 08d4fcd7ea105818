// Review of the CRM, storefront and forms areas: clinic filters inside subqueries and joins. Foreign
// keys of clinic-owned child rows name only the parent id, so the database alone does not stop a row
// of one clinic from pointing at another clinic's parent (or a child of another clinic from pointing
// at this clinic's parent). Each test writes such a row and checks that the answer (or the sweep)
// ignores the other clinic's data: every query on clinic-owned rows filters by clinic, subqueries and
// joins included. Style as in commerce-subquery-isolation.test.ts.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  brandTreatments,
  formGlobalProducts,
  messages,
  pageVersions,
  questionnaires,
  sequenceEnrollments,
  sequenceSteps,
  sequences,
  teleformRemovals,
  treatments,
} from '../../../drizzle/schema';
import { runSequences } from '../../../src/modules/crm/sequences/runner';
import { DevelopmentMessageSender } from '../../../src/platform/providers/messaging';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { makeGlobalProduct, makePatient } from '../../helpers/program-fixtures';

const t = useTestApp();
const sender = new DevelopmentMessageSender();
const unique = () => randomUUID().slice(0, 8);

async function api(key: string, path: string, body?: unknown, method?: string) {
  const res = await t.request(path, { key, body, method });
  expect(res.status, `${method ?? (body ? 'POST' : 'GET')} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await res.json()).data;
}

async function world() {
  return { owner: await makeTenant(t.db), stranger: await makeTenant(t.db) };
}

const patient = (clinicId: string, email = `p-${unique()}@example.test`) =>
  makePatient(t.db, clinicId, { email, phoneNumber: '+15550100000' });

/** An active manual sequence of the key's clinic with these steps. */
async function activeSequence(key: string, steps: unknown[]) {
  const seq = await api(key, '/api/v1/sequences', { name: `Seq ${unique()}`, triggerEvent: 'manual' });
  await api(key, `/api/v1/sequences/${seq.id}/steps`, { steps }, 'PUT');
  await api(key, `/api/v1/sequences/${seq.id}`, { status: 'active' }, 'PUT');
  return seq.id as string;
}

const ownEmailStep = { type: 'email', useCustomText: true, customSubject: 'Own subject', customText: 'Own text' };

describe('review: clinic filters in subqueries and joins', () => {
  it("GET /sequences/{id} never lists another clinic's step row", async () => {
    const { owner, stranger } = await world();
    const seq = await api(owner.key, '/api/v1/sequences', { name: 'Mine', triggerEvent: 'manual' });
    await t.db.insert(sequenceSteps).values({
      clinicId: stranger.clinic.id,
      sequenceId: seq.id,
      position: 7,
      type: 'sms',
      useCustomText: true,
      customText: 'stranger secret',
    });
    const read = await api(owner.key, `/api/v1/sequences/${seq.id}`);
    expect(read.steps).toEqual([]);
    const listed = await api(owner.key, '/api/v1/sequences');
    expect(listed.find((s: { id: string }) => s.id === seq.id).steps).toEqual([]);
  });

  it("the sequence runner never sends a clinic's message to another clinic's patient", async () => {
    t.clock.freezeAt(Math.floor(Date.now() / 1000) * 1000);
    const { owner, stranger } = await world();
    const seqId = await activeSequence(owner.key, [ownEmailStep]);
    const foreign = await patient(stranger.clinic.id, `foreign-${unique()}@example.test`);
    const now = new Date(t.clock.now());
    // An enrollment row of the owner that names the stranger's patient.
    await t.db.insert(sequenceEnrollments).values({
      clinicId: owner.clinic.id,
      sequenceId: seqId,
      patientId: foreign.id,
      status: 'active',
      nextStepPosition: 0,
      nextRunAt: now,
      enrolledAt: now,
      updatedAt: now,
    });
    await runSequences(t.db, now, sender);
    const sentToForeign = await t.db.select().from(messages).where(eq(messages.toAddress, foreign.email));
    expect(sentToForeign).toEqual([]);
  });

  it("the sequence runner never runs (or counts) another clinic's step row in a clinic's sequence", async () => {
    t.clock.freezeAt(Math.floor(Date.now() / 1000) * 1000);
    const { owner, stranger } = await world();
    const seqId = await activeSequence(owner.key, [ownEmailStep]);
    // A step row of the stranger naming the owner's sequence, after the owner's only step.
    await t.db.insert(sequenceSteps).values({
      clinicId: stranger.clinic.id,
      sequenceId: seqId,
      position: 1,
      type: 'email',
      useCustomText: true,
      customSubject: 'Stranger subject',
      customText: 'Stranger text',
    });
    const own = await patient(owner.clinic.id);
    await api(owner.key, '/api/v1/sequence-triggers/manual', { sequenceId: seqId, userId: own.id });
    await runSequences(t.db, new Date(t.clock.now()), sender);
    const sent = await t.db.select({ subject: messages.subject }).from(messages).where(eq(messages.clinicId, owner.clinic.id));
    expect(sent.map((m) => m.subject).filter((s) => s !== null && !s.startsWith('Welcome'))).toEqual(['Own subject']);
    const [enrollment] = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.patientId, own.id));
    expect(enrollment).toMatchObject({ status: 'completed', nextStepPosition: 1 });
  });

  it("GET /page-builder/pages/{id} never lists another clinic's version row", async () => {
    const { owner, stranger } = await world();
    const page = await api(owner.key, '/api/v1/page-builder/pages', { slug: `about-${unique()}`, draftContent: { title: 'About' } });
    await t.db.insert(pageVersions).values({
      clinicId: stranger.clinic.id,
      pageId: page.id,
      version: 5,
      content: { secret: true },
      seo: { seoTitle: 'Stranger title' },
      publishedAt: new Date(),
    });
    const read = await api(owner.key, `/api/v1/page-builder/pages/${page.id}`);
    expect(read.versions).toEqual([]);
  });

  it("POST /page-builder/pages/{id}/publish does not fail with a 5xx because of another clinic's version row", async () => {
    const { owner, stranger } = await world();
    const page = await api(owner.key, '/api/v1/page-builder/pages', { slug: `about-${unique()}`, draftContent: { title: 'About' } });
    await t.db.insert(pageVersions).values({
      clinicId: stranger.clinic.id,
      pageId: page.id,
      version: 1,
      content: {},
      seo: {},
      publishedAt: new Date(),
    });
    const res = await t.request(`/api/v1/page-builder/pages/${page.id}/publish`, { key: owner.key, method: 'POST' });
    expect(res.status).toBeLessThan(500);
  });

  it("DELETE /message-templates/{id} is neither refused by nor reveals another clinic's sequence", async () => {
    const { owner, stranger } = await world();
    const template = await api(owner.key, '/api/v1/message-templates', { name: 'Mail', type: 'email', subject: 'Hi', body: '<p>Hi</p>' });
    const [foreignSeq] = await t.db
      .insert(sequences)
      .values({ clinicId: stranger.clinic.id, name: 'Theirs', status: 'active', triggerEvent: 'manual' })
      .returning();
    // A step row of the owner that names the stranger's (active) sequence.
    await t.db
      .insert(sequenceSteps)
      .values({ clinicId: owner.clinic.id, sequenceId: foreignSeq!.id, position: 0, type: 'email', templateId: template.id });
    const res = await t.request(`/api/v1/message-templates/${template.id}`, { key: owner.key, method: 'DELETE' });
    const body = await res.clone().text();
    expect(body).not.toContain(foreignSeq!.id);
    expect(res.status).toBe(200);
  });

  it("GET /teleform-removals never shows another clinic's form name", async () => {
    const { owner, stranger } = await world();
    const [foreignForm] = await t.db
      .insert(questionnaires)
      .values({ clinicId: stranger.clinic.id, name: 'Stranger intake form' })
      .returning();
    await t.db
      .insert(teleformRemovals)
      .values({ clinicId: owner.clinic.id, questionnaireId: foreignForm!.id, scheduledFor: new Date(Date.now() + 86_400_000) });
    const res = await t.request('/api/v1/teleform-removals', { key: owner.key });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('Stranger intake form');
  });

  it("GET /brand-treatments never shows another clinic's treatment", async () => {
    const { owner, stranger } = await world();
    const [foreign] = await t.db
      .insert(treatments)
      .values({ clinicId: stranger.clinic.id, name: 'Stranger treatment', slug: `s-${unique()}` })
      .returning();
    await t.db.insert(brandTreatments).values({ clinicId: owner.clinic.id, treatmentId: foreign!.id });
    const res = await t.request('/api/v1/brand-treatments', { key: owner.key });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('Stranger treatment');
  });

  it("GET /forms/global-products never shows another clinic's form name", async () => {
    const { owner, stranger } = await world();
    const product = await makeGlobalProduct(t.db);
    const [foreignForm] = await t.db
      .insert(questionnaires)
      .values({ clinicId: stranger.clinic.id, name: 'Stranger linked form' })
      .returning();
    await t.db
      .insert(formGlobalProducts)
      .values({ clinicId: owner.clinic.id, questionnaireId: foreignForm!.id, globalProductId: product.id });
    const res = await t.request('/api/v1/forms/global-products', { key: owner.key });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('Stranger linked form');
  });
});
