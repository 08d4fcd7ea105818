import { ConfigError, type AppConfig, type Env } from '../../../config/index';
import { MemoryStorage } from './development';
import { R2Storage } from './r2';
import type { ObjectStorage } from './types';

export type { ObjectStorage, StoredObject, StoredObjectBody } from './types';
export { MemoryStorage } from './development';
export { R2Storage } from './r2';

// Per isolate: neither holds a socket (an R2 binding is not a connection), so they may outlive a request.
let r2: { bucket: R2Bucket; base: string | undefined; instance: R2Storage } | undefined;
let memory: { base: string | undefined; instance: MemoryStorage } | undefined;

/**
 * The storage for uploads: the UPLOADS R2 binding whenever it is bound (production, `wrangler dev`,
 * the workers tests); without it, development and test use an in-process MemoryStorage (objects
 * live as long as the isolate), and production refuses to run (ConfigError), so uploads are never
 * quietly kept in memory on the edge.
 */
export function storageFor(env: Env, config: Pick<AppConfig, 'environment'>): ObjectStorage {
  const base = env.UPLOADS_PUBLIC_BASE_URL || undefined;
  if (env.UPLOADS) {
    if (r2?.bucket !== env.UPLOADS || r2.base !== base) r2 = { bucket: env.UPLOADS, base, instance: new R2Storage(env.UPLOADS, base) };
    return r2.instance;
  }
  if (config.environment === 'production') {
    throw new ConfigError('The UPLOADS R2 bucket binding is missing (wrangler.toml [[r2_buckets]] binding = "UPLOADS")');
  }
  if (!memory || memory.base !== base) memory = { base, instance: new MemoryStorage(base) };
  return memory.instance;
}
