import type { Context } from 'hono';
import { type AppConfig, configFor } from '../config';
import { KeyCache } from './auth/key-cache';
import { BackgroundTasks } from './background';
import type { AppEnv, Services } from './context';
import { openDatabase, QUERY_ANSWER_TIMEOUT_MS } from './db/client';
import { ConnectionGate } from './db/connection-gate';
import { providersFor } from './providers';
import { MemoryRateLimiter } from './rate-limit/memory';
import type { RateLimiter } from './rate-limit/types';
import { UpstashRateLimiter } from './rate-limit/upstash';
import { RequestLogWriter, WORKER_BATCHING } from './request-log';

/** Services for one request, and what to do once the response is on its way. */
export interface RequestServices {
  services: Services;
  /** Called after the response is produced: finish background work, then release connections. */
  finish(): void;
}

export type ServicesFactory = (c: Context<AppEnv>) => Promise<RequestServices>;

// Per isolate, on purpose: none of these holds a socket (the in-process limiter is a Map, Upstash
// speaks HTTP per call, the gate and the log buffer are plain objects), so they may outlive a request.
let limiter: { key: string; instance: RateLimiter } | undefined;
let gate: ConnectionGate | undefined;
const requestLog = new RequestLogWriter(WORKER_BATCHING);
const keyCache = new KeyCache();

function rateLimiterFor(config: AppConfig): RateLimiter {
  const key = config.upstash ? `upstash:${config.upstash.url}` : 'memory';
  if (limiter?.key !== key) {
    limiter = { key, instance: config.upstash ? new UpstashRateLimiter(config.upstash) : new MemoryRateLimiter() };
  }
  return limiter.instance;
}

function gateFor(config: AppConfig): ConnectionGate {
  if (gate?.max !== config.database.maxConnections) gate = new ConnectionGate(config.database.maxConnections);
  return gate;
}

/** The Worker's services: a database opened for this request (connecting lazily) and closed in waitUntil. */
export const workerServices: ServicesFactory = async (c) => {
  const config = configFor(c.env);
  const database = await openDatabase({
    url: config.database.url,
    driver: config.database.driver,
    gate: gateFor(config),
    answerTimeoutMs: QUERY_ANSWER_TIMEOUT_MS,
  });
  const background = new BackgroundTasks();
  const providers = providersFor(config, c.env, database.db);
  // Production refuses to serve without the providers every deployment needs (ConfigError): built now,
  // a missing bucket or processor key fails every request, as a missing secret does. The others are
  // made on first use.
  void providers.storage;
  void providers.payments;
  return {
    services: Object.assign(providers, {
      config,
      db: database.db,
      rateLimiter: rateLimiterFor(config),
      requestLog,
      keyCache,
      assets: c.env.ASSETS,
      background: background.add,
      now: () => new Date(),
    }),
    finish() {
      c.executionCtx.waitUntil(background.settled().finally(() => database.close()));
    },
  };
};
