import { describe, expect, it } from 'vitest';
import { type AppConfig, ConfigError, type Env } from '../../src/config';
import type { Database } from '../../src/platform/db/client';
import { providersFor } from '../../src/platform/providers';
import { MemoryStorage, R2Storage } from '../../src/platform/providers/storage';

/** The storage providersFor gives these bindings and this configuration. */
const storageFor = (env: Env, config: Pick<AppConfig, 'environment'>) =>
  providersFor({ ...config, uploadsPublicBaseUrl: env.UPLOADS_PUBLIC_BASE_URL } as AppConfig, env, {} as Database).storage;

import { publicUrlBuilder } from '../../src/platform/providers/storage/public-url';

const KEY = 'clinics/5b0c1f0e-9a51-4a34-8a5f-0e6f3f4b9e21/program_image/0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10.png';

describe('public URLs of stored objects', () => {
  it('default to /uploads/<key> on the API host', () => {
    expect(publicUrlBuilder(undefined)(KEY)).toBe(`/uploads/${KEY}`);
  });

  it('use UPLOADS_PUBLIC_BASE_URL, with or without a trailing slash', () => {
    expect(publicUrlBuilder('https://cdn.example.com/u')(KEY)).toBe(`https://cdn.example.com/u/${KEY}`);
    expect(publicUrlBuilder('https://cdn.example.com/')(KEY)).toBe(`https://cdn.example.com/${KEY}`);
  });

  it('refuse a base that is not an absolute http(s) URL', () => {
    for (const base of ['cdn.example.com', '/relative', 'ftp://cdn.example.com', 'javascript:alert(1)', 'https://cdn.example.com/?a=1']) {
      expect(() => publicUrlBuilder(base), base).toThrow(ConfigError);
    }
  });

  it('encode each key segment', () => {
    expect(publicUrlBuilder(undefined)('a b/c?d')).toBe('/uploads/a%20b/c%3Fd');
  });
});

describe('MemoryStorage', () => {
  it('puts, gets (a copy) and deletes', async () => {
    const storage = new MemoryStorage();
    const bytes = new Uint8Array([1, 2, 3]);
    expect(await storage.put('k/1.png', bytes, 'image/png')).toEqual({ key: 'k/1.png', url: '/uploads/k/1.png' });
    bytes[0] = 9; // the stored copy does not change
    expect(await storage.get('k/1.png')).toEqual({ key: 'k/1.png', bytes: new Uint8Array([1, 2, 3]), contentType: 'image/png', size: 3 });
    await storage.delete('k/1.png');
    await storage.delete('k/1.png');
    expect(await storage.get('k/1.png')).toBeNull();
  });
});

/** Records the calls an R2 binding receives and keeps the objects (the Node side of the adapter; workerd has the real one). */
function fakeBucket() {
  const objects = new Map<string, { bytes: Uint8Array; contentType?: string }>();
  const calls: string[] = [];
  const bucket = {
    async put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }) {
      calls.push(`put ${key} ${options?.httpMetadata?.contentType}`);
      objects.set(key, { bytes: value.slice(), contentType: options?.httpMetadata?.contentType });
      return null;
    },
    async get(key: string) {
      calls.push(`get ${key}`);
      const object = objects.get(key);
      return object ? { httpMetadata: { contentType: object.contentType }, arrayBuffer: async () => object.bytes.slice().buffer } : null;
    },
    async delete(key: string) {
      calls.push(`delete ${key}`);
      objects.delete(key);
    },
  };
  return { bucket: bucket as unknown as R2Bucket, calls };
}

describe('R2Storage', () => {
  it('writes with the content type as HTTP metadata and reads it back', async () => {
    const { bucket, calls } = fakeBucket();
    const storage = new R2Storage(bucket, 'https://cdn.example.com');
    expect(await storage.put(KEY, new Uint8Array([7, 8]), 'image/png')).toEqual({ key: KEY, url: `https://cdn.example.com/${KEY}` });
    expect(await storage.get(KEY)).toEqual({ key: KEY, bytes: new Uint8Array([7, 8]), contentType: 'image/png', size: 2 });
    await storage.delete(KEY);
    expect(await storage.get(KEY)).toBeNull();
    expect(calls).toEqual([`put ${KEY} image/png`, `get ${KEY}`, `delete ${KEY}`, `get ${KEY}`]);
  });
});

describe('the storage a request gets (providersFor)', () => {
  it('uses the UPLOADS binding whenever it is bound', () => {
    const { bucket } = fakeBucket();
    expect(storageFor({ UPLOADS: bucket } as Env, { environment: 'production' })).toBeInstanceOf(R2Storage);
    expect(storageFor({ UPLOADS: bucket } as Env, { environment: 'development' })).toBeInstanceOf(R2Storage);
  });

  it('refuses to run in production without the binding', () => {
    expect(() => storageFor({} as Env, { environment: 'production' })).toThrow(ConfigError);
  });

  it('falls back to one in-process MemoryStorage in development and test', () => {
    const first = storageFor({} as Env, { environment: 'development' });
    expect(first).toBeInstanceOf(MemoryStorage);
    expect(storageFor({} as Env, { environment: 'test' })).toBe(first);
  });

  it('refuses a bad UPLOADS_PUBLIC_BASE_URL', () => {
    const { bucket } = fakeBucket();
    expect(() => storageFor({ UPLOADS: bucket, UPLOADS_PUBLIC_BASE_URL: 'not a url' } as Env, { environment: 'production' })).toThrow(
      ConfigError,
    );
  });
});
