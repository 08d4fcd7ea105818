// The two hostname rules configuration needs (platform domains, nested entries). The full rules of
// what a brand may register live with the domain providers (src/platform/providers/domains/hostname.ts).

/** The form a hostname is stored in: trimmed, lower-cased, without one trailing dot. */
export const normalizeHostname = (value: string) => value.trim().toLowerCase().replace(/\.$/, '');

/** True when `hostname` is `domain` or a name under it. */
export const isUnder = (hostname: string, domain: string) => hostname === domain || hostname.endsWith(`.${domain}`);
