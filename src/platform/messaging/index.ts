import type { AppConfig } from '../../env';
import { DevelopmentMessageSender } from './development';
import type { MessageSender } from './types';

export type { MessageSender, OutgoingMessage, RecordedMessage } from './types';
export { DevelopmentMessageSender } from './development';

/** The sender of this deployment (production adapters: docs/messaging.md). */
export function messagingFor(_config: AppConfig): MessageSender {
  return new DevelopmentMessageSender();
}
