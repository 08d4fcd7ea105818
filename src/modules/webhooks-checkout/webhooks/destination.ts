// Whether a webhook URL may be called: the URL policy, then every address its name has now
// (docs/webhooks.md, "What stops a webhook URL reaching our network"). The same check runs when a URL is
// registered or changed and again before every delivery attempt, since a name can point elsewhere by
// then (DNS rebinding).
import type { HostResolver } from '../../../platform/providers/dns/types';
import { checkWebhookUrl, refusedAddress, type UrlPolicyOptions } from './url-policy';

export interface DestinationOptions extends UrlPolicyOptions {
  resolver: HostResolver;
}

export type DestinationCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Checks a URL and, unless it is the development loopback exemption, resolves its name: refused when
 * the name has no address or any of its addresses is not public (one private address among public
 * ones is enough: a caller may be sent to any of them). The resolver's ProviderError (no usable answer)
 * is thrown on: a name that cannot be checked is never let through.
 */
export async function checkWebhookDestination(input: string, options: DestinationOptions): Promise<DestinationCheck> {
  const policy = checkWebhookUrl(input, options);
  if (!policy.ok) return policy;
  const ok: DestinationCheck = { ok: true, url: policy.url };
  if (policy.resolve === null) return ok;
  const addresses = await options.resolver.addressesOf(policy.resolve);
  if (addresses === null) return ok;
  if (addresses.length === 0) return { ok: false, reason: `${policy.resolve} has no address (no A or AAAA record)` };
  for (const address of addresses) {
    const reason = refusedAddress(address);
    if (reason) return { ok: false, reason: `must not point at ${reason}: ${policy.resolve} resolves to ${address}` };
  }
  return ok;
}
