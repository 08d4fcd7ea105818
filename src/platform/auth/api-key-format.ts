import type { KeyKind } from '../../../drizzle/schema';
import { randomBytes, sha256Hex, toBase64Url } from './crypto';

/** Prefixes tell a key's type at a glance; every key of a sandbox clinic is a svc_test_ key. */
export const KEY_PREFIXES = {
  secret: 'svc_live_',
  publishable: 'svc_pk_',
  ai_connector: 'svc_ai_',
  sandbox: 'svc_test_',
} as const;

const KNOWN_PREFIXES = Object.values(KEY_PREFIXES);
/** Longest raw key accepted before hashing; anything longer cannot be ours. */
const MAX_KEY_LENGTH = 128;
/** Characters of the raw key kept in keyPrefix for display: the type prefix plus eight more. */
const DISPLAY_CHARS = 8;

export interface GeneratedKey {
  raw: string;
  keyPrefix: string;
  keyHash: string;
}

export async function generateApiKey(kind: KeyKind, isSandbox: boolean): Promise<GeneratedKey> {
  const prefix = isSandbox ? KEY_PREFIXES.sandbox : KEY_PREFIXES[kind];
  const raw = prefix + toBase64Url(randomBytes(32));
  return { raw, keyPrefix: raw.slice(0, prefix.length + DISPLAY_CHARS), keyHash: await hashApiKey(raw) };
}

export const hashApiKey = (raw: string) => sha256Hex(raw);

/** Cheap shape check before any hashing or database work. */
export function looksLikeApiKey(raw: string | undefined): raw is string {
  return !!raw && raw.length <= MAX_KEY_LENGTH && KNOWN_PREFIXES.some((p) => raw.startsWith(p));
}
