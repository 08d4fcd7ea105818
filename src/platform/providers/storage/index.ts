export { MemoryStorage } from './development';
export { R2Storage } from './r2';
export type { ObjectStorage, StoredObject, StoredObjectBody } from './types';
