import type { smsConfigs } from '../../../../../drizzle/schema';
import type { SmsProviderName } from '../../../../platform/providers/sms';
import { isoOrNull } from '../../../../platform/values/dates';
import { SMS_FREE_TIER_MESSAGES_PER_MONTH, type SmsConfigView, type SmsStatusView } from './schemas';

export type SmsConfigRow = typeof smsConfigs.$inferSelect;

export function toSmsConfig(provider: SmsProviderName, row: SmsConfigRow | null): SmsConfigView {
  if (!row || row.provider !== provider) {
    return {
      provider,
      configured: false,
      accountSid: null,
      phoneNumber: null,
      status: 'not_configured',
      activatedAt: null,
      releasedAt: null,
      updatedAt: null,
    };
  }
  return {
    provider,
    configured: true,
    accountSid: row.accountSid,
    phoneNumber: row.phoneNumber,
    status: row.status,
    activatedAt: isoOrNull(row.activatedAt),
    releasedAt: isoOrNull(row.releasedAt),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The calendar month (UTC) `now` is in: [start, end). */
export function monthOf(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export function toSmsStatus(row: SmsConfigRow | null, sent: number, period: { start: Date; end: Date }): SmsStatusView {
  return {
    provider: row ? (row.provider as SmsProviderName) : null,
    status: row ? row.status : 'not_configured',
    tollFreeNumber: row?.status === 'active' ? row.phoneNumber : null,
    activatedAt: isoOrNull(row?.activatedAt),
    releasedAt: isoOrNull(row?.releasedAt),
    usage: {
      periodStart: period.start.toISOString(),
      periodEnd: period.end.toISOString(),
      messagesSent: sent,
      freeTierLimit: SMS_FREE_TIER_MESSAGES_PER_MONTH,
      freeTierRemaining: Math.max(0, SMS_FREE_TIER_MESSAGES_PER_MONTH - sent),
      billableMessages: Math.max(0, sent - SMS_FREE_TIER_MESSAGES_PER_MONTH),
    },
  };
}
