export type { ObjectStorage, StoredObject, StoredObjectBody } from './types';
export { MemoryStorage } from './development';
export { R2Storage } from './r2';
