import { and, asc, eq, inArray, notInArray, type SQL } from 'drizzle-orm';
import { clinics, type MessageChannel, messages } from '../../../../drizzle/schema';
import type { Database } from '../../db/client';
import { describeError, logLine } from '../../log';
import type { Sweep } from '../../sweep';
import { QueueingMessageSender } from './queueing';
import type { MessageTransport } from './transport';
import { truncateError } from './transport';
import type { MessageSender } from './types';

/** A queued row older than this is given up on (failed) instead of being sent late. Resend keeps idempotency keys as long. */
export const MESSAGE_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Messages one run hands to providers at most (each call waits at most PROVIDER_TIMEOUT_MS). */
export const DELIVERY_BATCH_LIMIT = 100;

/**
 * The platform's own emails to a clinic's staff, which leave even for a sandbox clinic: the signer's
 * go-live invitation is how a sandbox clinic goes live at all, and a team invitation is how its staff
 * get in. Only messages to patients and contacts (welcome, sequences) stay inside the sandbox.
 */
export const STAFF_MESSAGE_KINDS: readonly string[] = ['invitation', 'go_live_invitation'];

export interface DeliveryOptions {
  /** Only these rows (deliverSoon after a request); default: every queued row, oldest first. */
  ids?: string[];
  limit?: number;
  maxAgeMs?: number;
}

export interface DeliveryReport {
  sent: number;
  failed: number;
  /** Left queued after a retryable failure (429, 5xx, network); the next run tries again. */
  retrying: number;
  /** Rows of sandbox clinics: recorded as the development sender does, never handed to a provider. */
  sandboxed: number;
}

/**
 * Hands queued messages to their providers and records the outcome. Each row is claimed in its own
 * transaction with SELECT ... FOR UPDATE SKIP LOCKED and stays locked while its provider is called,
 * so two runs at once (the cron sweep and a deliverSoon) never take the same row; a run that dies
 * mid-call rolls back and leaves the row queued for the next run (Resend's Idempotency-Key keeps that
 * from sending the email twice). Outcomes:
 * - accepted: status sent, providerMessageId, sentAt = now, error null;
 * - refused for good (4xx): status failed, error;
 * - retryable (429, 5xx, timeout, network): stays queued with the error; tried on the next run;
 * - queued longer than maxAgeMs: failed ("not delivered within 24 hours"), without another attempt;
 * - a sandbox clinic's row to a patient or contact: status sent with provider development, never handed to a
 *   provider (its staff emails, STAFF_MESSAGE_KINDS, leave as any clinic's);
 * - a channel the transport has no provider for: left alone.
 * Each row is tried at most once per run.
 */
export async function deliverQueuedMessages(
  db: Database,
  now: Date,
  transport: MessageTransport,
  options: DeliveryOptions = {},
): Promise<DeliveryReport> {
  const report: DeliveryReport = { sent: 0, failed: 0, retrying: 0, sandboxed: 0 };
  const channels = (['email', 'sms'] as MessageChannel[]).filter((channel) => transport[channel]);
  if (channels.length === 0 || options.ids?.length === 0) return report;
  const limit = options.limit ?? DELIVERY_BATCH_LIMIT;
  const maxAgeMs = options.maxAgeMs ?? MESSAGE_MAX_AGE_MS;
  const tried: string[] = [];

  while (tried.length < limit) {
    const conditions: SQL[] = [eq(messages.status, 'queued'), inArray(messages.channel, channels)];
    if (options.ids) conditions.push(inArray(messages.id, options.ids));
    if (tried.length) conditions.push(notInArray(messages.id, tried));
    const claimed = await db.transaction(async (tx) => {
      const [row] = await tx
        .select({
          id: messages.id,
          channel: messages.channel,
          to: messages.toAddress,
          subject: messages.subject,
          body: messages.body,
          format: messages.format,
          error: messages.error,
          createdAt: messages.createdAt,
          clinicMode: clinics.mode,
          kind: messages.kind,
        })
        .from(messages)
        .innerJoin(clinics, eq(clinics.id, messages.clinicId))
        .where(and(...conditions))
        .orderBy(asc(messages.createdAt), asc(messages.id))
        .limit(1)
        .for('update', { of: messages, skipLocked: true });
      if (!row) return false;
      tried.push(row.id);
      const mark = (values: Partial<typeof messages.$inferInsert>) => tx.update(messages).set(values).where(eq(messages.id, row.id));

      if (row.clinicMode === 'sandbox' && !STAFF_MESSAGE_KINDS.includes(row.kind)) {
        await mark({ status: 'sent', provider: 'development', providerMessageId: `dev_${crypto.randomUUID()}`, sentAt: now, error: null });
        report.sandboxed++;
        return true;
      }
      if (now.getTime() - row.createdAt.getTime() > maxAgeMs) {
        const last = row.error ? ` (last error: ${row.error})` : '';
        await mark({ status: 'failed', error: truncateError(`not delivered within ${Math.round(maxAgeMs / 3_600_000)} hours${last}`) });
        report.failed++;
        return true;
      }
      const provider = transport[row.channel]!;
      const result = await provider
        .deliver({ id: row.id, channel: row.channel, to: row.to, subject: row.subject, body: row.body, format: row.format })
        .catch((error: unknown) => ({
          ok: false as const,
          retry: true,
          error: truncateError(`${provider.provider}: ${describeError(error).message}`),
        }));
      if (result.ok) {
        await mark({ status: 'sent', provider: provider.provider, providerMessageId: result.providerMessageId, sentAt: now, error: null });
        report.sent++;
      } else if (result.retry) {
        await mark({ error: result.error });
        report.retrying++;
      } else {
        await mark({ status: 'failed', provider: provider.provider, error: result.error });
        report.failed++;
      }
      return true;
    });
    if (!claimed) break;
  }
  if (report.failed || report.retrying) {
    logLine('warn', 'message delivery incomplete', { ...report });
  }
  return report;
}

/**
 * After a request's transaction has committed: deliver the messages it queued now, in the background
 * (waitUntil), instead of waiting for the next cron run. Does nothing for the development sender.
 */
export function deliverSoon(
  services: { db: Database; messaging: MessageSender; now(): Date; background(work: Promise<unknown>): void },
  messageIds: string[],
): void {
  const sender = services.messaging;
  if (!(sender instanceof QueueingMessageSender) || messageIds.length === 0) return;
  services.background(
    deliverQueuedMessages(services.db, services.now(), sender.transport, { ids: messageIds }).catch((error: unknown) => {
      logLine('warn', 'message delivery after the request failed; the cron sweep will retry', { error: describeError(error) });
    }),
  );
}

/**
 * The cron sweep: every queued message (oldest first, DELIVERY_BATCH_LIMIT per run) to its provider.
 * Does nothing without a provider (development). Runs after every sweep that queues messages (src/scheduled.ts).
 */
export const deliverQueuedMessagesSweep: Sweep = async function messageDelivery(db, now, { messageTransport: transport }) {
  if (!transport.email && !transport.sms) return;
  await deliverQueuedMessages(db, now, transport);
};
