// Which addresses a host name has right now: what decides whether a webhook URL may be called
// (docs/webhooks.md, "What stops a webhook URL reaching our network"). Production asks a
// DNS-over-HTTPS resolver (Cloudflare's 1.1.1.1); development does not look names up.

export interface HostResolver {
  /** cloudflare-doh | development */
  readonly name: string;
  /**
   * Every IPv4 (A) and IPv6 (AAAA) address `hostname` has now, CNAMEs followed by the resolver, IPv6
   * in compressed lower-case form; [] when it has none (NXDOMAIN, or no A and no AAAA record).
   * null: this implementation does not look names up (development).
   * Throws ProviderError('dns', ..., 'unavailable') when no usable answer came in time.
   */
  addressesOf(hostname: string): Promise<string[] | null>;
}
