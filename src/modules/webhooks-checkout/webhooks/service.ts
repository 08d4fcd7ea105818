import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints, webhookSecrets } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { KeyRing } from '../../../platform/crypto/secret-box';
import { lockClinic } from '../../../platform/db/clinic-lock';
import { forClinic } from '../../../platform/db/scoped';
import type { WebhookEvent } from '../../../platform/events/names';
import { type PageQuery, pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import type { HostResolver } from '../../../platform/providers/dns/types';
import { ERROR_MESSAGES } from '../../../platform/values/error-messages';
import { conflict, invalidField, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { checkWebhookDestination } from './destination';
import type { CreateWebhookBody, UpdateWebhookBody, WebhookEndpoint } from './schemas';
import { insertSigningSecret, retireCurrentSecrets } from './secrets';

/** Endpoints a clinic may have at once (not deleted); each event fans out to every subscribed one. */
export const MAX_ENDPOINTS_PER_CLINIC = 20;

export interface WebhookSettings {
  /** config.secretKeys */
  secretKey: KeyRing;
  /** config.webhookAllowInsecureLocalhost */
  allowInsecureLocalhost: boolean;
  /** services.hostResolver: what the URL's name resolves to (production: DNS over HTTPS). */
  resolver: HostResolver;
}

/** The deployment's webhook settings, from the context's configuration and resolver. */
const settingsOf = ({ config, hostResolver }: HandlerContext): WebhookSettings => ({
  secretKey: config.secretKeys,
  allowInsecureLocalhost: config.webhookAllowInsecureLocalhost,
  resolver: hostResolver,
});

const RESOURCE = 'Webhook endpoint';
type EndpointRow = typeof webhookEndpoints.$inferSelect;

const endpointColumns = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  events: webhookEndpoints.events,
  isActive: webhookEndpoints.isActive,
  lastTriggeredAt: webhookEndpoints.lastTriggeredAt,
  consecutiveFailures: webhookEndpoints.consecutiveFailures,
  createdAt: webhookEndpoints.createdAt,
};

/** The endpoint's public fields, one by one (never a secret, never clinic or deletion columns). */
export function toEndpoint(row: Pick<EndpointRow, keyof typeof endpointColumns>): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    isActive: row.isActive,
    lastTriggeredAt: row.lastTriggeredAt ? row.lastTriggeredAt.toISOString() : null,
    consecutiveFailures: row.consecutiveFailures,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The URL to store, or a 400 naming body.url. Resolved before any transaction opens (no connection is
 * held while the resolver answers); a resolver with no answer is a 503 (ProviderError 'dns').
 */
async function checkedUrl(url: string, settings: WebhookSettings): Promise<string> {
  const result = await checkWebhookDestination(url, settings);
  if (!result.ok) throw invalidField('body.url', result.reason);
  return result.url;
}

/** Duplicates dropped, first occurrence order kept (names were validated by the schema). */
const uniqueEvents = (events: string[]) => [...new Set(events)];

const notDeleted = (id: string) => and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt));

/** The clinic's endpoints that are not deleted, newest first, paged; one query. */
export async function listWebhooks(ctx: HandlerContext, query: PageQuery) {
  const { db, clinicId } = ctx;
  const scoped = forClinic(db, clinicId);
  const rows = await db
    .select({ ...endpointColumns, total: totalCount() })
    .from(webhookEndpoints)
    .where(scoped.where(webhookEndpoints, isNull(webhookEndpoints.deletedAt)))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => scoped.count(webhookEndpoints, isNull(webhookEndpoints.deletedAt)));
  return { data: page.rows.map(toEndpoint), pagination: page.pagination };
}

export async function getWebhook(ctx: HandlerContext, id: string): Promise<WebhookEndpoint> {
  const { db, clinicId } = ctx;
  if (!isUuid(id)) throw notFound(RESOURCE);
  const [row] = await db
    .select(endpointColumns)
    .from(webhookEndpoints)
    .where(forClinic(db, clinicId).where(webhookEndpoints, notDeleted(id)))
    .limit(1);
  if (!row) throw notFound(RESOURCE);
  return toEndpoint(row);
}

/**
 * Creates the endpoint and its first signing secret in one transaction. The clinic row is locked
 * first so concurrent creations cannot pass the per-clinic limit together.
 */
export async function createWebhook(ctx: HandlerContext, input: CreateWebhookBody) {
  const { db, clinicId } = ctx;
  const settings = settingsOf(ctx);
  const now = ctx.now();
  const url = await checkedUrl(input.url, settings);
  return db.transaction(async (tx) => {
    await lockClinic(tx, clinicId);
    const scoped = forClinic(tx, clinicId);
    if ((await scoped.count(webhookEndpoints, isNull(webhookEndpoints.deletedAt))) >= MAX_ENDPOINTS_PER_CLINIC) {
      throw conflict('WEBHOOK_ENDPOINT_LIMIT_REACHED', ERROR_MESSAGES.WEBHOOK_ENDPOINT_LIMIT_REACHED(MAX_ENDPOINTS_PER_CLINIC));
    }
    const row = await scoped.insert(webhookEndpoints, { url, events: uniqueEvents(input.events), createdAt: now, updatedAt: now });
    const secret = await insertSigningSecret(tx, clinicId, row.id, settings.secretKey, now);
    return { ...toEndpoint(row), secret };
  });
}

/**
 * Changes url, events or isActive. Turning an inactive endpoint on resets consecutiveFailures and
 * disabledAt and makes its pending and held deliveries (those created while it was off) pending and due
 * now, so they go out on the next dispatch, in order. Turning it off keeps every pending delivery, and
 * events while it is off are held for it (nothing is sent until it is on again).
 */
export async function updateWebhook(ctx: HandlerContext, id: string, input: UpdateWebhookBody) {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  const url = input.url === undefined ? undefined : await checkedUrl(input.url, settingsOf(ctx));
  return db.transaction(async (tx) => {
    const scoped = forClinic(tx, clinicId);
    const [current] = await tx
      .select({ isActive: webhookEndpoints.isActive })
      .from(webhookEndpoints)
      .where(scoped.where(webhookEndpoints, notDeleted(id)))
      .for('update');
    if (!current) throw notFound(RESOURCE);
    const turnedOn = input.isActive === true && !current.isActive;
    const turnedOff = input.isActive === false && current.isActive;
    const row = await scoped.updateById(
      webhookEndpoints,
      id,
      {
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: uniqueEvents(input.events) } : {}),
        ...(turnedOn ? { isActive: true, consecutiveFailures: 0, disabledAt: null } : {}),
        ...(turnedOff ? { isActive: false, disabledAt: now } : {}),
        updatedAt: now,
      },
      RESOURCE,
    );
    if (turnedOn) {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now })
        .where(
          and(
            eq(webhookDeliveries.clinicId, clinicId),
            eq(webhookDeliveries.endpointId, id),
            inArray(webhookDeliveries.status, ['pending', 'held']),
          ),
        );
    }
    return toEndpoint(row);
  });
}

/**
 * Soft delete (deleted_at): the endpoint disappears from the API and its pending and held deliveries end as
 * failed ("endpoint deleted"); its secrets are deleted. Deleting it again answers 404.
 */
export async function deleteWebhook(ctx: HandlerContext, id: string): Promise<{ id: string }> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ deletedAt: now, isActive: false, updatedAt: now })
      .where(forClinic(tx, clinicId).where(webhookEndpoints, notDeleted(id)))
      .returning({ id: webhookEndpoints.id });
    if (!row) throw notFound(RESOURCE);
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, lastError: 'endpoint deleted' })
      .where(
        and(
          eq(webhookDeliveries.clinicId, clinicId),
          eq(webhookDeliveries.endpointId, id),
          inArray(webhookDeliveries.status, ['pending', 'held']),
        ),
      );
    await tx.delete(webhookSecrets).where(and(eq(webhookSecrets.clinicId, clinicId), eq(webhookSecrets.endpointId, id)));
    return { id: row.id };
  });
}

/**
 * A new current secret, returned once. The previous current secret keeps signing until now + grace
 * (0: it is expired at once); older ones still in a grace period end no later than that.
 */
export async function rotateWebhookSecret(ctx: HandlerContext, id: string, graceSeconds: number) {
  const { db, clinicId, config } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select(endpointColumns)
      .from(webhookEndpoints)
      .where(forClinic(tx, clinicId).where(webhookEndpoints, notDeleted(id)))
      .for('update');
    if (!row) throw notFound(RESOURCE);
    const previousUntil = await retireCurrentSecrets(tx, clinicId, id, now, new Date(now.getTime() + graceSeconds * 1000));
    const secret = await insertSigningSecret(tx, clinicId, id, config.secretKeys, now);
    return { ...toEndpoint(row), secret, previousSecretExpiresAt: previousUntil ? previousUntil.toISOString() : null };
  });
}
