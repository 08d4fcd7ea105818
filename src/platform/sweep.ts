import type { AppConfig } from '../config';
import type { Database } from './db/client';
import type { Providers } from './providers';

/** What a periodic job gets besides its database and time: the configuration and the providers (the same door as a request's). */
export type SweepServices = Providers & { config: AppConfig };

/**
 * A periodic job: the run's database, its time, and the services. Each area lists its sweeps in its
 * index.ts; the cron composition root, src/scheduled.ts, runs them in order.
 */
export type Sweep = (db: Database, now: Date, services: SweepServices) => Promise<void>;
