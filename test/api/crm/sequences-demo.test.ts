// The CRM sequences demo data: templates with merge fields, a draft and an active sequence with steps
// per live clinic, enrollments with their runs and messages; idempotent, isolated, and runnable.
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages, sequenceEnrollments, sequenceStepRuns } from '../../../drizzle/schema';
import { seedDemoData } from '../../../scripts/seed';
import { DEMO } from '../../../scripts/seed/ids';
import { seedSequenceId, seedTemplateId } from '../../../scripts/seed/sequences';
import { runSequences } from '../../../src/modules/crm/sequences/runner';
import { DevelopmentMessageSender } from '../../../src/platform/providers/messaging';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
const keys: Record<string, string> = {};

beforeAll(async () => {
  await seedDemoData(t.db);
  keys.demo = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  keys.harbor = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
});

const get = async (key: string, path: string) => {
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return (await res.json()).data;
};

describe('sequences demo data', () => {
  it('gives both live clinics email and sms templates with merge fields', async () => {
    for (const key of [keys.demo!, keys.harbor!]) {
      const templates = await get(key, '/api/v1/message-templates');
      expect(new Set(templates.map((x: { type: string }) => x.type))).toEqual(new Set(['email', 'sms']));
      for (const template of templates) expect(template.mergeFields).toContain('firstName');
    }
  });

  it('gives both live clinics an active sequence with runs and a draft one, all with steps', async () => {
    for (const [c, key] of [keys.demo!, keys.harbor!].entries()) {
      const list = await get(key, '/api/v1/sequences');
      expect(list.map((s: { status: string }) => s.status).sort()).toEqual(['active', 'draft']);
      for (const s of list) expect(s.steps.length).toBeGreaterThan(0);
      const active = await get(key, `/api/v1/sequences/${seedSequenceId(c, 1)}`);
      expect(active).toMatchObject({ status: 'active', trigger: { event: 'contact_created', tagId: null } });
      expect(active.analytics).toEqual({ enrolled: 6, active: 3, completed: 3, cancelled: 0, sent: 12, skipped: 1, failed: 0 });
      expect(active.steps[0].templateId).toBe(seedTemplateId(c, 1));
    }
    const sent = await t.db.select().from(messages).where(eq(messages.kind, 'sequence'));
    expect(sent.length).toBeGreaterThanOrEqual(24);
    expect(sent.find((m) => m.clinicId === DEMO.clinics.demo && m.channel === 'email')!.subject).toMatch(/^Welcome to .+, .+!$/);
  });

  it("answers 404 to the other clinic's demo ids", async () => {
    for (const path of [`/api/v1/sequences/${seedSequenceId(1, 1)}`, `/api/v1/message-templates/${seedTemplateId(1, 1)}`]) {
      expect((await t.request(path, { key: keys.demo })).status).toBe(404);
    }
  });

  it('runs: the waiting enrollments advance when their steps are due, and a re-seed does not undo it', async () => {
    const sender = new DevelopmentMessageSender();
    await runSequences(t.db, new Date(Date.now() + 30 * 86_400_000), sender);
    await runSequences(t.db, new Date(Date.now() + 40 * 86_400_000), sender);
    const active = await get(keys.demo!, `/api/v1/sequences/${seedSequenceId(0, 1)}`);
    expect(active.analytics).toMatchObject({ enrolled: 6, active: 0, completed: 6 });
    await seedDemoData(t.db); // idempotent, and runtime progress is kept
    const again = await get(keys.demo!, `/api/v1/sequences/${seedSequenceId(0, 1)}`);
    expect(again.analytics).toEqual(active.analytics);
    const runs = (await t.db.execute(
      sql`select count(*)::int as n from ${sequenceStepRuns} where ${sequenceStepRuns.sequenceId} = ${seedSequenceId(0, 1)}`,
    )) as unknown as { rows: { n: number }[] };
    expect(runs.rows[0]!.n).toBe(18);
    const open = await t.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.status, 'active'));
    expect(open.filter((e) => e.sequenceId === seedSequenceId(0, 1))).toEqual([]);
  });
});
