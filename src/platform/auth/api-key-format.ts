import type { KeyKind } from '../../../drizzle/schema';
import { randomBytes, sha256Hex, toBase64Url } from '../crypto/bytes';

/** Prefixes tell a key's type at a glance; every key of a sandbox clinic is a svc_test_ key. */
export const KEY_PREFIXES = {
  secret: 'svc_live_',
  publishable: 'svc_pk_',
  ai_connector: 'svc_ai_',
  sandbox: 'svc_test_',
} as const;

const KNOWN_PREFIXES = Object.values(KEY_PREFIXES);
/** 32 random bytes in base64url. */
const RANDOM_CHARS = 43;
/** CRC32 of prefix and random part, in base62, zero-padded (62^6 > 2^32). */
const CHECKSUM_CHARS = 6;
/** Characters of the raw key kept in keyPrefix for display: the type prefix plus eight more. */
const DISPLAY_CHARS = 8;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_PART = /^[A-Za-z0-9_-]+$/;

export interface GeneratedKey {
  raw: string;
  keyPrefix: string;
  keyHash: string;
}

/**
 * `<prefix><43 random chars><6 checksum chars>`, as GitHub's tokens: the checksum lets a mistyped or
 * naively made-up key be refused before any database work. It is not a secret and proves nothing;
 * only the hash lookup does.
 */
export async function generateApiKey(kind: KeyKind, isSandbox: boolean): Promise<GeneratedKey> {
  const prefix = isSandbox ? KEY_PREFIXES.sandbox : KEY_PREFIXES[kind];
  const body = prefix + toBase64Url(randomBytes(32));
  const raw = body + checksum(body);
  return { raw, keyPrefix: raw.slice(0, prefix.length + DISPLAY_CHARS), keyHash: await hashApiKey(raw) };
}

export const hashApiKey = (raw: string) => sha256Hex(raw);

/**
 * Whether the x-api-key value can be a key of ours, judged without the database: a known prefix, 43
 * base64url characters and a matching checksum. Anything else (missing, unknown prefix, wrong length or
 * alphabet, bad checksum, and the checksum-less `<prefix><43 characters>` shape, which this code never
 * issued) is refused before any lookup.
 */
export function isWellFormedApiKey(raw: string | undefined): raw is string {
  if (!raw) return false;
  const prefix = KNOWN_PREFIXES.find((p) => raw.startsWith(p));
  if (!prefix) return false;
  const rest = raw.slice(prefix.length);
  if (rest.length !== RANDOM_CHARS + CHECKSUM_CHARS || !RANDOM_PART.test(rest)) return false;
  return raw.slice(-CHECKSUM_CHARS) === checksum(raw.slice(0, -CHECKSUM_CHARS));
}

function checksum(text: string): string {
  let value = crc32(new TextEncoder().encode(text));
  let out = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3), the checksum GitHub's token format uses. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
