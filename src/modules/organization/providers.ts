// The domain and SMS providers an organization service asks, chosen for the context's clinic: a
// sandbox clinic's calls never reach a real provider.
import type { HandlerContext } from '../../platform/context';
import type { CustomHostnameProvider, EmailDomainProvider } from '../../platform/providers/domains';
import type { SmsNumberProvider } from '../../platform/providers/sms';

export const customHostnamesOf = (ctx: HandlerContext, recordId?: string | null): CustomHostnameProvider =>
  ctx.customHostnames({ sandbox: ctx.sandbox, recordId });

export const emailDomainsOf = (ctx: HandlerContext, recordId?: string | null): EmailDomainProvider =>
  ctx.emailDomains({ sandbox: ctx.sandbox, recordId });

export const smsNumbersOf = (ctx: HandlerContext): SmsNumberProvider => ctx.smsNumbers({ sandbox: ctx.sandbox });
