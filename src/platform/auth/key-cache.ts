import type { KeyCacheStore, KeyPrincipal, KeyRecord, Services } from '../context';
import type { GatewayStore, RateLimiter } from '../rate-limit/types';
import { isGatewayStore } from '../rate-limit/types';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError } from '../values/errors';
import { isUuid } from '../values/ids';

/** How long this isolate trusts a key it looked up, unless a marker says otherwise (docs/api-keys.md). */
export const KEY_CACHE_TTL_MS = 30_000;
/** Keys remembered per isolate; the oldest goes first. */
export const KEY_CACHE_MAX_ENTRIES = 1_000;
/**
 * How long a revocation marker stays set: longer than any entry cached before the change can live
 * (the TTL), with room for the change's transaction to commit after the marker was first written.
 */
export const KEY_MARKER_TTL_MS = 3 * KEY_CACHE_TTL_MS;

export type { KeyRecord };

/** The markers a request with this key reads: one per key, one per clinic. */
export const keyMarker = (keyId: string) => `key:${keyId}`;
export const clinicMarker = (clinicId: string) => `clinic:${clinicId}`;
export const markersOf = (principal: Pick<KeyPrincipal, 'keyId' | 'clinicId'>) => [
  keyMarker(principal.keyId),
  clinicMarker(principal.clinicId),
];

/**
 * Keys looked up recently in this isolate, by the SHA-256 of the raw key (the raw value is never kept).
 * An entry only saves the lookup: every request still reads the key's and its clinic's markers in the
 * rate-limit store (the same round trip as its limits), and a set marker, or a store that cannot
 * answer, sends the request to the database as if nothing were cached.
 */
export class KeyCache implements KeyCacheStore {
  private readonly entries = new Map<string, { record: KeyRecord; cachedAt: number }>();

  constructor(
    private readonly ttlMs = KEY_CACHE_TTL_MS,
    private readonly maxEntries = KEY_CACHE_MAX_ENTRIES,
  ) {}

  get(keyHash: string, now: number): KeyRecord | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    // A clock moved back (tests) counts as stale too.
    if (now - entry.cachedAt >= this.ttlMs || now < entry.cachedAt || entry.record.validUntil <= now) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.record;
  }

  set(keyHash: string, record: KeyRecord, now: number): void {
    this.entries.delete(keyHash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, { record, cachedAt: now });
  }

  delete(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * Announces a change that makes cached keys wrong (revocation, roll, plan change): sets the markers,
 * so every isolate's next request with such a key goes to the database. Call it BEFORE the change
 * commits (a store that cannot record the marker then stops the change: a revocation that would not
 * be immediate is refused, 503) and again after it (best effort), see docs/api-keys.md.
 */
export async function announceKeyChange(limiter: RateLimiter, markers: string[]): Promise<void> {
  if (!isGatewayStore(limiter)) return; // no store, no cache trusted (gatewayCheck answers marked null)
  await (limiter as GatewayStore).mark(markers, KEY_MARKER_TTL_MS);
}

/**
 * announceKeyChange for keys and clinics by id (malformed ids are skipped: they match no key). A store
 * that cannot record the markers answers 503 SERVICE_UNAVAILABLE, so the caller's change is not made.
 */
export async function announceKeyChanges(services: Pick<Services, 'rateLimiter'>, keyIds: string[], clinicIds: string[] = []) {
  const markers = [...keyIds.filter(isUuid).map(keyMarker), ...clinicIds.filter(isUuid).map(clinicMarker)];
  if (markers.length === 0) return;
  try {
    await announceKeyChange(services.rateLimiter, markers);
  } catch (error) {
    console.error(
      JSON.stringify({ level: 'error', msg: 'key change marker not recorded', error: error instanceof Error ? error.name : 'unknown' }),
    );
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', ERROR_MESSAGES.SERVICE_UNAVAILABLE.keyCaches);
  }
}
