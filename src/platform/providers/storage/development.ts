import { publicUrlBuilder } from './public-url';
import type { ObjectStorage, StoredObject, StoredObjectBody } from './types';

/** In-process storage for Node tests and for development without an R2 binding. Copies bytes in and out. */
export class MemoryStorage implements ObjectStorage {
  readonly objects = new Map<string, { bytes: Uint8Array; contentType: string }>();
  readonly urlFor: (key: string) => string;

  constructor(publicBaseUrl?: string) {
    this.urlFor = publicUrlBuilder(publicBaseUrl);
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredObject> {
    this.objects.set(key, { bytes: bytes.slice(), contentType });
    return { key, url: this.urlFor(key) };
  }

  async get(key: string): Promise<StoredObjectBody | null> {
    const object = this.objects.get(key);
    return object ? { key, bytes: object.bytes.slice(), contentType: object.contentType, size: object.bytes.byteLength } : null;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
