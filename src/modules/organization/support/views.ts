// What tickets and conversations answer alike: timestamps (Date from a row, string from json_agg) and messages.
import type { TicketMessage } from './schemas';

export const iso = (d: Date | string) => new Date(d).toISOString();
export const isoOrNull = (d: Date | string | null) => (d ? iso(d) : null);

/** A message as aggregated by json_agg (createdAt is a string there). */
export type MessageJson = Omit<TicketMessage, 'createdAt'> & { createdAt: string };

/** The fields every message answers, from a json_agg element. */
export const messageFields = (m: MessageJson): TicketMessage => ({
  id: m.id,
  authorType: m.authorType,
  authorUserId: m.authorUserId,
  authorName: m.authorName,
  message: m.message,
  createdAt: iso(m.createdAt),
});

/** A message just written through the API: authored by the key, so no user and no name. */
export const apiKeyMessageFields = (row: { id: string; body: string; createdAt: Date }) => ({
  id: row.id,
  authorType: 'api_key' as const,
  authorUserId: null,
  authorName: null,
  message: row.body,
  createdAt: iso(row.createdAt),
});
