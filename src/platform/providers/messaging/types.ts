import type { MessageChannel, MessageFormat } from '../../../../drizzle/schema';
import type { Queryable } from '../../db/client';

/** One email or SMS to send. */
export interface OutgoingMessage {
  clinicId: string;
  channel: MessageChannel;
  /** What caused it: welcome, sequence, invitation, go_live_invitation, ... */
  kind: string;
  /** Email address, or E.164 phone number for SMS. */
  to: string;
  subject?: string | null;
  body: string;
  /**
   * Email only: `html` when body is HTML within the markup allow-list (checked by the caller, e.g. the
   * sequence runner, before it renders), sent as the HTML part; default `text`, sent as it is.
   */
  format?: MessageFormat;
  patientId?: string | null;
}

export interface RecordedMessage {
  id: string;
  status: 'queued' | 'sent' | 'failed';
}

/**
 * Sends email and SMS. `send` records the message in the `messages` table through `db`, so a caller
 * inside a transaction gets the message committed (or rolled back) with its change; nothing is sent
 * for a change that did not happen. The development sender stops there (the table is its inbox);
 * production senders hand queued rows to the provider after the commit (docs/messaging.md).
 */
export interface MessageSender {
  /** development, resend, twilio, ... (stored in messages.provider). */
  readonly provider: string;
  send(db: Queryable, message: OutgoingMessage, now: Date): Promise<RecordedMessage>;
}
