const CONTROL = /[\p{Cc}\p{Cs}]/gu;
const MAX_DOMAIN = 100;

/**
 * An email as it may appear in an import's error rows: the first character of the local part, then
 * ***, then the domain (jane.doe@example.com -> j***@example.com). A value without @ keeps only its
 * first character (j***). Control characters become ?, the domain is cut at 100 characters. Empty: null.
 */
export function redactEmail(value: string | undefined | null): string | null {
  const trimmed = (value ?? '').trim().replace(CONTROL, '?');
  if (!trimmed) return null;
  const at = trimmed.lastIndexOf('@');
  const first = Array.from(trimmed)[0]!.toLowerCase();
  if (at < 0) return `${first}***`;
  const local = trimmed.slice(0, at);
  const domain = trimmed
    .slice(at + 1)
    .slice(0, MAX_DOMAIN)
    .toLowerCase();
  return `${local ? Array.from(local)[0]!.toLowerCase() : ''}***@${domain}`;
}
