import type { Context } from 'hono';
import { readConfig, type AppConfig } from '../env';
import { BackgroundTasks } from './background';
import type { AppEnv, Services } from './context';
import { openDatabase } from './db/client';
import { MemoryRateLimiter } from './rate-limit/memory';
import type { RateLimiter } from './rate-limit/types';
import { UpstashRateLimiter } from './rate-limit/upstash';

/** Services for one request, and what to do once the response is on its way. */
export interface RequestServices {
  services: Services;
  /** Called after the response is produced: finish background work, then release connections. */
  finish(): void;
}

export type ServicesFactory = (c: Context<AppEnv>) => Promise<RequestServices>;

// Limiters hold no sockets (the in-process one is a Map, Upstash speaks HTTP per call), so one per
// isolate is safe and keeps in-process counts across requests.
let limiter: { key: string; instance: RateLimiter } | undefined;

function rateLimiterFor(config: AppConfig): RateLimiter {
  const key = config.upstash ? `upstash:${config.upstash.url}` : 'memory';
  if (limiter?.key !== key) {
    limiter = { key, instance: config.upstash ? new UpstashRateLimiter(config.upstash) : new MemoryRateLimiter() };
  }
  return limiter.instance;
}

/** The Worker's services: a database opened for this request and closed in waitUntil. */
export const workerServices: ServicesFactory = async (c) => {
  const config = readConfig(c.env);
  const database = await openDatabase(config.databaseUrl, config.databaseDriver);
  const background = new BackgroundTasks();
  return {
    services: { config, db: database.db, rateLimiter: rateLimiterFor(config), background: background.add, now: () => new Date() },
    finish() {
      c.executionCtx.waitUntil(background.settled().finally(() => database.close()));
    },
  };
};
