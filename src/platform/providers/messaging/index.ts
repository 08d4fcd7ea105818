import type { AppConfig } from '../../../config/index';
import { DevelopmentMessageSender } from './development';
import { QueueingMessageSender } from './queueing';
import { transportFor } from './providers';
import type { MessageSender } from './types';

export type { MessageSender, OutgoingMessage, RecordedMessage } from './types';
export { DevelopmentMessageSender } from './development';
export { QueueingMessageSender } from './queueing';
export { messagingConfigFrom, isValidEmailFrom, RESEND_API_BASE_URL, TWILIO_API_BASE_URL } from '../../../config/messaging';
export type { MessagingConfig, MessagingEnv, ResendConfig, TwilioConfig } from '../../../config/messaging';
export { ResendEmailTransport } from './resend';
export { TwilioSmsTransport } from './twilio';
export { transportFor } from './providers';
export type { ChannelTransport, DeliverableMessage, DeliveryResult, FetchLike, MessageTransport } from './transport';
export {
  DELIVERY_BATCH_LIMIT, deliverQueuedMessages, deliverQueuedMessagesSweep, deliverSoon, MESSAGE_MAX_AGE_MS,
  type DeliveryOptions, type DeliveryReport,
} from './deliver';

/**
 * The sender of this deployment (docs/messaging.md). `config.messaging` is what messagingConfigFrom
 * read from the environment (AppConfig.messaging, src/config/index.ts):
 * - a provider for email and/or SMS: the queueing sender (rows queued, delivered after the commit by
 *   deliverSoon and the cron sweep); a channel without a provider falls back to the development
 *   sender outside production and is recorded as failed in production;
 * - no provider: the development sender (rows recorded as sent; the table is the inbox).
 *   Production without email is refused by messagingConfigFrom (ConfigError).
 */
export function messagingFor(config: Pick<AppConfig, 'environment' | 'messaging'>): MessageSender {
  const messaging = config.messaging;
  if (messaging && (messaging.email || messaging.sms)) {
    const fallback = config.environment === 'production' ? null : new DevelopmentMessageSender();
    return new QueueingMessageSender(transportFor(messaging), fallback);
  }
  return new DevelopmentMessageSender();
}
