import { messages } from '../../../../drizzle/schema';
import type { Queryable } from '../../db/client';
import type { MessageSender, OutgoingMessage, RecordedMessage } from './types';

/** The messages row of one outgoing message, with what the sender decided (status, provider, ...). */
export async function insertMessage(
  db: Queryable,
  message: OutgoingMessage,
  now: Date,
  outcome: Pick<typeof messages.$inferInsert, 'status' | 'provider'> &
    Partial<Pick<typeof messages.$inferInsert, 'providerMessageId' | 'error' | 'sentAt'>>,
): Promise<RecordedMessage> {
  const [row] = await db
    .insert(messages)
    .values({
      clinicId: message.clinicId,
      channel: message.channel,
      kind: message.kind,
      toAddress: message.to,
      subject: message.subject ?? null,
      body: message.body,
      format: message.channel === 'email' ? (message.format ?? 'text') : 'text',
      patientId: message.patientId ?? null,
      createdAt: now,
      ...outcome,
    })
    .returning({ id: messages.id, status: messages.status });
  return { id: row!.id, status: row!.status };
}

/**
 * Development and tests: a message is "sent" by recording it (status sent). Inspect the messages
 * table (or GET it through tests) to see what a real provider would have delivered.
 */
export class DevelopmentMessageSender implements MessageSender {
  readonly provider = 'development';

  send(db: Queryable, message: OutgoingMessage, now: Date): Promise<RecordedMessage> {
    return insertMessage(db, message, now, {
      status: 'sent',
      provider: this.provider,
      providerMessageId: `dev_${crypto.randomUUID()}`,
      sentAt: now,
    });
  }
}
