// The CRM contacts demo data (scripts/seed/contacts.ts): tags in several categories with one inactive,
// at least 30 tagged contacts in Demo Clinic, opted-out contacts with a date, welcome emails; it loads
// again over itself without new rows, and reads back through the API.
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../scripts/seed';
import { seedTagId } from '../../../scripts/seed/contacts';
import { DEMO } from '../../../scripts/seed/ids';
import { rowsOf } from '../../../src/platform/db/sql';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
let demoKey: string;
let harborKey: string;

beforeAll(async () => {
  await seedDemoData(t.db);
  demoKey = (await makeKey(t.db, DEMO.clinics.demo)).raw;
  harborKey = (await makeKey(t.db, DEMO.clinics.harbor)).raw;
});

const rows = <T>(query: ReturnType<typeof sql>) => rowsOf<T>(t.db, query);

interface Contact {
  id: string;
  emailOptedOut: boolean;
  smsOptedOut: boolean;
  optOutDate: string | null;
  lastContactDate: string | null;
  tags: { id: string; isActive: boolean }[];
}

async function allContacts(key: string): Promise<Contact[]> {
  const res = await t.request('/api/v1/contacts?limit=200', { key });
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

describe('CRM contacts demo data', () => {
  it('gives Demo Clinic at least 30 tagged contacts and Harbor Clinic tagged contacts too', async () => {
    const demo = await allContacts(demoKey);
    expect(demo.filter((c) => c.tags.length > 0).length).toBeGreaterThanOrEqual(30);
    const harbor = await allContacts(harborKey);
    expect(harbor.filter((c) => c.tags.length > 0).length).toBeGreaterThanOrEqual(10);
    // Every tag on a contact is its own clinic's.
    const harborTagIds = new Set(harbor.flatMap((c) => c.tags.map((tag) => tag.id)));
    expect(demo.some((c) => c.tags.some((tag) => harborTagIds.has(tag.id)))).toBe(false);
  });

  it('has tags in several categories, one of them inactive but still on contacts', async () => {
    for (const key of [demoKey, harborKey]) {
      const { data } = await (await t.request('/api/v1/tags?limit=200', { key })).json();
      const categories = new Set(data.map((tag: { category: string }) => tag.category));
      expect(categories.size).toBeGreaterThanOrEqual(4);
      const inactive = (await (await t.request('/api/v1/tags?isActive=false', { key })).json()).data;
      expect(inactive).toHaveLength(1);
    }
    const demo = await allContacts(demoKey);
    expect(demo.some((c) => c.tags.some((tag) => tag.id === seedTagId(0, 9) && !tag.isActive))).toBe(true);
  });

  it('has opted-out contacts with a date, and welcome emails behind lastContactDate', async () => {
    for (const key of [demoKey, harborKey]) {
      const contacts = await allContacts(key);
      const optedOut = contacts.filter((c) => c.emailOptedOut || c.smsOptedOut);
      expect(optedOut.length).toBeGreaterThanOrEqual(2);
      expect(optedOut.every((c) => c.optOutDate !== null)).toBe(true);
      expect(contacts.filter((c) => c.lastContactDate !== null).length).toBeGreaterThanOrEqual(5);
    }
    const welcome = await rows<{ clinic_id: string; n: number }>(sql`
      select clinic_id, count(*)::int as n from messages where kind = 'welcome' group by clinic_id`);
    const byClinic = Object.fromEntries(welcome.map((r) => [r.clinic_id, r.n]));
    expect(byClinic[DEMO.clinics.demo]).toBeGreaterThanOrEqual(5);
    expect(byClinic[DEMO.clinics.harbor]).toBeGreaterThanOrEqual(5);
  });

  it('loads again over itself without new tags, assignments or messages', async () => {
    const counts = async () =>
      rows<{ tags: number; assignments: number; messages: number; opted: number }>(sql`
      select (select count(*)::int from tags) as tags, (select count(*)::int from patient_tags) as assignments,
             (select count(*)::int from messages) as messages,
             (select count(*)::int from patients where email_opted_out or sms_opted_out) as opted`);
    const before = await counts();
    await seedDemoData(t.db);
    expect(await counts()).toEqual(before);
  });
});
