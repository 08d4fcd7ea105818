import type { Database } from '../../src/platform/db/client';

// Being built (see the area's issue).
export async function seedStorefrontPages(_db: Database, _now: Date): Promise<void> {}
