import type { Queryable } from '../../db/client';
import { type DevelopmentMessageSender, insertMessage } from './development';
import type { MessageTransport } from './transport';
import type { MessageSender, OutgoingMessage, RecordedMessage } from './types';

/**
 * The production sender. `send` runs inside the caller's transaction, so it must not call a provider
 * (the change might still roll back): it records the row as queued, with the provider that will
 * deliver it. After the commit, deliverQueuedMessages (the cron sweep, and deliverSoon right after a
 * request) hands queued rows to the provider and marks them sent or failed (docs/messaging.md).
 *
 * A channel without a provider: in production the row is recorded as failed ("no SMS provider
 * configured"), so nothing pretends to have been sent; in development and tests, where `fallback`
 * is given, the development sender records it instead.
 */
export class QueueingMessageSender implements MessageSender {
  readonly provider: string;

  constructor(
    readonly transport: MessageTransport,
    private readonly fallback: DevelopmentMessageSender | null = null,
  ) {
    this.provider = [transport.email?.provider, transport.sms?.provider].filter(Boolean).join(',') || 'none';
  }

  async send(db: Queryable, message: OutgoingMessage, now: Date): Promise<RecordedMessage> {
    const channel = this.transport[message.channel];
    if (!channel && this.fallback) return this.fallback.send(db, message, now);
    return insertMessage(db, message, now, {
      status: channel ? 'queued' : 'failed',
      provider: channel ? channel.provider : 'none',
      error: channel ? null : `no ${message.channel === 'sms' ? 'SMS' : 'email'} provider configured`,
    });
  }
}
