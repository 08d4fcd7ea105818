export type { MessageSender, OutgoingMessage, RecordedMessage } from './types';
export { DevelopmentMessageSender } from './development';
export { QueueingMessageSender } from './queueing';
export { ResendEmailTransport } from './resend';
export { TwilioSmsTransport } from './twilio';
export type { ChannelTransport, DeliverableMessage, DeliveryResult, FetchLike, MessageTransport } from './transport';
export {
  DELIVERY_BATCH_LIMIT, deliverQueuedMessages, deliverQueuedMessagesSweep, deliverSoon, MESSAGE_MAX_AGE_MS,
  type DeliveryOptions, type DeliveryReport,
} from './deliver';
