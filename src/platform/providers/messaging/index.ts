export type { FetchLike } from '../http';
export {
  DELIVERY_BATCH_LIMIT,
  type DeliveryOptions,
  type DeliveryReport,
  deliverQueuedMessages,
  deliverQueuedMessagesSweep,
  deliverSoon,
  MESSAGE_MAX_AGE_MS,
} from './deliver';
export { DevelopmentMessageSender } from './development';
export { QueueingMessageSender } from './queueing';
export { ResendEmailTransport } from './resend';
export type { ChannelTransport, DeliverableMessage, DeliveryResult, MessageTransport } from './transport';
export { TwilioSmsTransport } from './twilio';
export type { MessageSender, OutgoingMessage, RecordedMessage } from './types';
