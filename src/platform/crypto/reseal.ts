// The re-seal of a root key rotation (docs/secrets.md): every sealed column, in bounded batches by id,
// re-sealed under the current root when it is in the legacy format or under the previous root.
// Each row is updated only if it still holds the value read (a concurrent write wins). A value that
// opens under neither root is counted as failed and left as it is (it is not retried in this run).
import { and, asc, eq, gt, isNotNull } from 'drizzle-orm';
import { crmConnections, idempotencyKeys, smsConfigs, webhookSecrets } from '../../../drizzle/schema';
import type { Queryable } from '../db/client';
import { SEALED } from './sealed-values';
import { type KeyRing, needsReseal, open, SecretBoxError, seal } from './secret-box';

export interface ResealCount {
  checked: number;
  resealed: number;
  /** Sealed under a root that is neither the current nor the previous one (or altered). */
  failed: number;
}

interface Row {
  id: string;
  sealed: string | null;
  associatedData: string;
}

/** One sealed column: read a batch after an id, write one value back if unchanged. */
interface Column {
  name: string;
  purpose: (typeof SEALED)[keyof typeof SEALED]['purpose'];
  batch(db: Queryable, after: string, limit: number): Promise<Row[]>;
  write(db: Queryable, id: string, before: string, after: string): Promise<void>;
}

const COLUMNS: Column[] = [
  {
    name: 'webhook_secrets.encrypted_secret',
    purpose: SEALED.webhookSigningSecret.purpose,
    batch: async (db, after, limit) =>
      (
        await db
          .select({ id: webhookSecrets.id, sealed: webhookSecrets.encryptedSecret, endpointId: webhookSecrets.endpointId })
          .from(webhookSecrets)
          .where(gt(webhookSecrets.id, after))
          .orderBy(asc(webhookSecrets.id))
          .limit(limit)
      ).map((r) => ({ id: r.id, sealed: r.sealed, associatedData: SEALED.webhookSigningSecret.associatedData(r.endpointId) })),
    write: async (db, id, before, after) => {
      await db
        .update(webhookSecrets)
        .set({ encryptedSecret: after })
        .where(and(eq(webhookSecrets.id, id), eq(webhookSecrets.encryptedSecret, before)));
    },
  },
  {
    name: 'crm_connections.encrypted_credentials',
    purpose: SEALED.crmCredentials.purpose,
    batch: async (db, after, limit) =>
      (
        await db
          .select({ id: crmConnections.id, sealed: crmConnections.encryptedCredentials, clinicId: crmConnections.clinicId })
          .from(crmConnections)
          .where(gt(crmConnections.id, after))
          .orderBy(asc(crmConnections.id))
          .limit(limit)
      ).map((r) => ({ id: r.id, sealed: r.sealed, associatedData: SEALED.crmCredentials.associatedData(r.clinicId) })),
    write: async (db, id, before, after) => {
      await db
        .update(crmConnections)
        .set({ encryptedCredentials: after })
        .where(and(eq(crmConnections.id, id), eq(crmConnections.encryptedCredentials, before)));
    },
  },
  {
    name: 'sms_configs.encrypted_auth_token',
    purpose: SEALED.smsAuthToken.purpose,
    batch: async (db, after, limit) =>
      (
        await db
          .select({ id: smsConfigs.clinicId, sealed: smsConfigs.encryptedAuthToken })
          .from(smsConfigs)
          .where(gt(smsConfigs.clinicId, after))
          .orderBy(asc(smsConfigs.clinicId))
          .limit(limit)
      ).map((r) => ({ id: r.id, sealed: r.sealed, associatedData: SEALED.smsAuthToken.associatedData(r.id) })),
    write: async (db, id, before, after) => {
      await db
        .update(smsConfigs)
        .set({ encryptedAuthToken: after })
        .where(and(eq(smsConfigs.clinicId, id), eq(smsConfigs.encryptedAuthToken, before)));
    },
  },
  {
    name: 'idempotency_keys.sealed_response',
    purpose: SEALED.idempotencyAnswer.purpose,
    batch: async (db, after, limit) =>
      (
        await db
          .select({
            id: idempotencyKeys.id,
            sealed: idempotencyKeys.sealedResponse,
            clinicId: idempotencyKeys.clinicId,
            keyHash: idempotencyKeys.keyHash,
          })
          .from(idempotencyKeys)
          .where(and(gt(idempotencyKeys.id, after), isNotNull(idempotencyKeys.sealedResponse)))
          .orderBy(asc(idempotencyKeys.id))
          .limit(limit)
      ).map((r) => ({ id: r.id, sealed: r.sealed, associatedData: SEALED.idempotencyAnswer.associatedData(r.clinicId, r.keyHash) })),
    write: async (db, id, before, after) => {
      await db
        .update(idempotencyKeys)
        .set({ sealedResponse: after })
        .where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.sealedResponse, before)));
    },
  },
];

/** The smallest uuid: every id sorts after it. */
const BEFORE_ALL = '00000000-0000-0000-0000-000000000000';

/** Re-seals every sealed column under the current root, `batchSize` rows per query. Returns counts per column. */
export async function resealAll(db: Queryable, keys: KeyRing, options: { batchSize?: number } = {}): Promise<Record<string, ResealCount>> {
  const batchSize = options.batchSize ?? 500;
  const counts: Record<string, ResealCount> = {};
  for (const column of COLUMNS) {
    const count: ResealCount = { checked: 0, resealed: 0, failed: 0 };
    let after = BEFORE_ALL;
    for (;;) {
      const rows = await column.batch(db, after, batchSize);
      for (const row of rows) {
        count.checked++;
        if (row.sealed === null || !(await needsReseal(keys, row.sealed))) continue;
        try {
          const plaintext = await open(keys, column.purpose, row.sealed, row.associatedData);
          await column.write(db, row.id, row.sealed, await seal(keys, column.purpose, plaintext, row.associatedData));
          count.resealed++;
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          count.failed++;
        }
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1]!.id;
    }
    counts[column.name] = count;
  }
  return counts;
}
