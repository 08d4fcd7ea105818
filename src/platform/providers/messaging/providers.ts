import type { MessagingConfig } from '../../../config/messaging';
import { ResendEmailTransport } from './resend';
import type { FetchLike, MessageTransport } from './transport';
import { TwilioSmsTransport } from './twilio';

/** The provider adapters of a configuration (fetchImpl: tests may pass their own). */
export function transportFor(config: MessagingConfig, fetchImpl?: FetchLike): MessageTransport {
  return {
    email: config.email ? new ResendEmailTransport(config.email, fetchImpl) : null,
    sms: config.sms ? new TwilioSmsTransport(config.sms, fetchImpl) : null,
  };
}
