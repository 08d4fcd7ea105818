/** A stored object as the API reports it: its key in the bucket and the URL clients use for it. */
export interface StoredObject {
  key: string;
  url: string;
}

/** An object read back (for the logo proxy and tests). Images are small (docs/uploads.md), so bytes, not a stream. */
export interface StoredObjectBody {
  key: string;
  bytes: Uint8Array;
  contentType: string;
  size: number;
}

/**
 * Where uploaded files live. Production and `wrangler dev`: the R2 bucket bound as UPLOADS
 * (R2Storage); Node tests and development without the binding: MemoryStorage. Keys are chosen by
 * the caller (clinics/<clinicId>/<purpose>/<uuid>.<ext>); `put` overwrites an existing key.
 */
export interface ObjectStorage {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredObject>;
  /** null when nothing is stored under the key. */
  get(key: string): Promise<StoredObjectBody | null>;
  /** Deleting a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** The URL `put` answers for a key, without storing anything. */
  urlFor(key: string): string;
}
