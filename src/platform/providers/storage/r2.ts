import { publicUrlBuilder } from './public-url';
import type { ObjectStorage, StoredObject, StoredObjectBody } from './types';

/** The subset of the R2 binding this adapter uses (the UPLOADS bucket binding in wrangler.toml). */
export type R2BucketLike = Pick<R2Bucket, 'put' | 'get' | 'delete'>;

/**
 * Objects in a Cloudflare R2 bucket through its Worker binding (no credentials, no HTTP client).
 * `wrangler dev` and miniflare give a local bucket under the same binding name.
 */
export class R2Storage implements ObjectStorage {
  readonly urlFor: (key: string) => string;

  constructor(
    private readonly bucket: R2BucketLike,
    publicBaseUrl?: string,
  ) {
    this.urlFor = publicUrlBuilder(publicBaseUrl);
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredObject> {
    await this.bucket.put(key, bytes, { httpMetadata: { contentType } });
    return { key, url: this.urlFor(key) };
  }

  async get(key: string): Promise<StoredObjectBody | null> {
    const object = await this.bucket.get(key);
    if (!object) return null;
    const bytes = new Uint8Array(await object.arrayBuffer());
    return { key, bytes, contentType: object.httpMetadata?.contentType ?? 'application/octet-stream', size: bytes.byteLength };
  }

  async delete(key: string): Promise<void> {
    await this.bucket.delete(key);
  }
}
