import { afterAll, afterEach, beforeAll } from 'vitest';
import { type App, createApp } from '../../src/app';
import {
  type AppConfig,
  DEFAULT_COPILOT_MODEL,
  DEVELOPMENT_JWT_SECRET,
  DEVELOPMENT_WEBHOOK_SECRET_KEY,
  domainsConfigFrom,
  type Env,
  smsNumbersConfigFrom,
} from '../../src/config';
import { KeyCache } from '../../src/platform/auth/key-cache';
import { BackgroundTasks } from '../../src/platform/background';
import { type HandlerContext, type Services, systemContext } from '../../src/platform/context';
import type { Database } from '../../src/platform/db/client';
import { type Providers, providersFor } from '../../src/platform/providers';
import type { AiProvider } from '../../src/platform/providers/ai/types';
import type { MessageSender } from '../../src/platform/providers/messaging';
import type { PaymentProcessor } from '../../src/platform/providers/payments';
import { MemoryStorage } from '../../src/platform/providers/storage/development';
import { MemoryRateLimiter } from '../../src/platform/rate-limit/memory';
import type { RateLimiter } from '../../src/platform/rate-limit/types';
import { RequestLogWriter } from '../../src/platform/request-log';
import type { ServicesFactory } from '../../src/platform/services';
import { createTestDatabase } from './database';
import { assertDeclaredResponse } from './strict-response';

/** A clock tests can move forward; both the app and its rate limiter read it. */
export class TestClock {
  private fixedMs: number | null = null;
  offsetMs = 0;
  now = () => (this.fixedMs ?? Date.now()) + this.offsetMs;
  advance(ms: number) {
    this.offsetMs += ms;
  }
  /** Stops the clock at `ms` (until advanced), so window boundaries cannot make a test flaky. */
  freezeAt(ms: number) {
    this.fixedMs = ms;
    this.offsetMs = 0;
  }
  /** Stops the clock one second into the current window of this length (rate-limit tests). */
  freezeAtWindowStart(windowSeconds: number) {
    const windowMs = windowSeconds * 1000;
    this.freezeAt(Math.floor(Date.now() / windowMs) * windowMs + 1_000);
  }
  /** Back to real time. */
  unfreeze() {
    this.fixedMs = null;
    this.offsetMs = 0;
  }
}

let clientCounter = 0;
const nextClientIp = () => {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
};

export interface RequestOptions {
  method?: string;
  key?: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Response whose JSON is loosely typed, for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are loosely typed in tests, for assertions
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface TestApp {
  app: App;
  db: Database;
  databaseUrl: string;
  clock: TestClock;
  config: AppConfig;
  /** The app's services (config and providers included): what a sweep gets in the Worker's cron. */
  services: Services;
  /** Sends a request through the app; JSON-encodes `body` unless it is a string. */
  request(path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Sends a request exactly as given (headers, body, content type: nothing added but a client address), checked like request(). */
  send(path: string, init: RequestInit): Promise<TestResponse>;
  /** Waits for the work the app left running after its responses (request logs and the like). */
  flush(): Promise<void>;
  /** SQL of every statement sent through `db`, in order (clear it with `queries.length = 0`). */
  queries: string[];
  /** Where the app stores uploads (in memory), to check what was stored. */
  storage: MemoryStorage;
  /** Empties the isolate's key cache: the next request with any key looks it up again. */
  forgetKeys(): void;
}

export const testConfig = (databaseUrl: string): AppConfig => ({
  environment: 'test',
  database: { url: databaseUrl, driver: 'pg', source: 'database_url', maxConnections: 20 },
  jwtSecret: DEVELOPMENT_JWT_SECRET,
  upstash: null,
  devSimulator: false,
  stripe: null,
  copilot: { model: DEFAULT_COPILOT_MODEL },
  secretKeys: { current: DEVELOPMENT_WEBHOOK_SECRET_KEY },
  webhookAllowInsecureLocalhost: false,
  qstash: null,
  crmOAuth: { redirectUrl: null, clientIds: {} },
  messaging: { email: null, sms: null },
  domains: domainsConfigFrom({}),
  smsNumbers: smsNumbersConfigFrom({}, 'test'),
});

export interface TestAppOptions {
  rateLimiter?: RateLimiter;
  clock?: TestClock;
  queries?: string[];
  /** Stand-ins for providers, handed to providersFor (the Worker's one door) as its overrides. */
  providers?: Partial<Providers>;
  payments?: PaymentProcessor;
  ai?: AiProvider | null;
  messaging?: MessageSender;
  /** Mount the areas on demand, as the Worker does (src/index.ts); default: all mounted now. */
  areasOnDemand?: boolean;
}

/**
 * The services a test app runs with: the Worker's providers (providersFor) on the test configuration,
 * with in-memory storage and whatever stand-ins the caller gives, and a request-log writer of its own.
 */
export function testServices(
  base: Pick<Services, 'config' | 'db' | 'rateLimiter' | 'background' | 'now'>,
  providers: Partial<Providers> = {},
  requestLog = new RequestLogWriter(),
  keyCache = new KeyCache(),
): Services {
  return Object.assign(providersFor(base.config, {}, base.db, { ...providers, storage: providers.storage ?? new MemoryStorage() }), base, {
    requestLog,
    keyCache,
  });
}

/**
 * The handler context a route of `clinicId` would hand its service (src/platform/context.ts), for
 * tests that call a service directly: the test configuration, in-memory storage, the given stand-ins
 * and clock; the actor is the test itself.
 */
export function testContext(
  db: Database,
  clinicId: string,
  options: { now?: () => Date; sandbox?: boolean; providers?: Partial<Providers>; databaseUrl?: string } = {},
): HandlerContext {
  const base = {
    config: testConfig(options.databaseUrl ?? ''),
    db,
    rateLimiter: new MemoryRateLimiter(),
    background: () => {},
    now: options.now ?? (() => new Date()),
  };
  return systemContext(testServices(base, options.providers), clinicId, 'test', options.sandbox ?? false);
}

/**
 * A request's Worker variables (`app.request(path, init, env)`), read with the production readers into
 * the provider settings (custom domains, email domains, SMS numbers): what a deployment with those
 * variables would run with. No variables: the app's own configuration.
 */
function configWithEnv(config: AppConfig, env: Env | undefined): AppConfig {
  if (!env || Object.keys(env).length === 0) return config;
  return { ...config, domains: domainsConfigFrom(env), smsNumbers: smsNumbersConfigFrom(env, config.environment) };
}

export function buildTestApp(db: Database, databaseUrl: string, options: TestAppOptions = {}): TestApp {
  const clock = options.clock ?? new TestClock();
  const config = testConfig(databaseUrl);
  const rateLimiter = options.rateLimiter ?? new MemoryRateLimiter(clock.now);
  const background = new BackgroundTasks();
  // Batched as in the Worker, with a short wait so a test's flush() is quick.
  const requestLog = new RequestLogWriter({ flushRows: 100, flushAfterMs: 5 });
  const keyCache = new KeyCache();
  const standIns: Partial<Providers> = { storage: new MemoryStorage(), ...options.providers };
  if (options.payments) standIns.payments = options.payments;
  if (options.ai !== undefined) standIns.ai = options.ai;
  if (options.messaging) standIns.messaging = options.messaging;
  // Fresh per request, as in the Worker: a test that changes t.config is seen by the next request.
  const servicesFor = (env?: Env) =>
    testServices(
      { config: configWithEnv(config, env), db, rateLimiter, background: background.add, now: () => new Date(clock.now()) },
      standIns,
      requestLog,
      keyCache,
    );
  // The ASSETS binding a request passes (app.request(path, init, { ASSETS })), as workerServices hands it on.
  const requestServices: ServicesFactory = async (c) => ({
    services: Object.assign(servicesFor(c.env), { assets: c.env?.ASSETS }),
    finish() {},
  });
  const app = createApp(requestServices, { areasOnDemand: options.areasOnDemand });
  // An app with areas on demand declares its routes once loaded: answers are checked against the same app with all mounted.
  const declared = options.areasOnDemand ? createApp(requestServices) : app;
  const send = (path: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    if (!headers.has('cf-connecting-ip')) headers.set('cf-connecting-ip', nextClientIp());
    const method = init.method ?? 'GET';
    // Every JSON response must match what its operation declares for its status (strict-response.ts).
    return Promise.resolve(app.request(path, { ...init, method, headers })).then(async (res) => {
      await assertDeclaredResponse(declared, { method, path }, res);
      return withoutRequestId(res);
    }) as Promise<TestResponse>;
  };
  const testApp: TestApp = {
    app,
    db,
    databaseUrl,
    clock,
    config,
    get services() {
      return servicesFor();
    },
    request(path, { method, key, token, body, headers = {} } = {}) {
      const init: RequestInit = { method: method ?? (body === undefined ? 'GET' : 'POST'), headers: { ...headers } };
      const h = init.headers as Record<string, string>;
      // Each request comes from its own address unless the test says otherwise, so the per-IP limit
      // of unauthenticated routes never couples unrelated tests.
      h['cf-connecting-ip'] ??= nextClientIp();
      if (key) h['x-api-key'] = key;
      if (token) h.authorization = `Bearer ${token}`;
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      return send(path, init);
    },
    send,
    flush: () => background.settled(),
    queries: options.queries ?? [],
    storage: standIns.storage as MemoryStorage,
    forgetKeys: () => keyCache.clear(),
  };
  backgroundOf.set(db, [...(backgroundOf.get(db) ?? []), background]);
  return testApp;
}

/**
 * Every error body carries the request's id (`requestId`, the answer's X-Request-Id): checked here for
 * every error any test receives (a replayed answer's names the request that ran), then left out of the body the test reads, so that tests comparing
 * answers (another clinic's id answers the same body as an unknown one) compare what the answer says of
 * the resource, not two requests' different ids. Tests of the request id itself use `t.app.request`.
 */
export async function withoutRequestId(res: Response): Promise<Response> {
  if (res.status < 400 || !/json/.test(res.headers.get('content-type') ?? '')) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  if (body && typeof body === 'object' && (body as { success?: unknown }).success === false) {
    const { requestId, ...rest } = body as { requestId?: unknown };
    const header = res.headers.get('x-request-id');
    // A replayed answer (Idempotent-Replayed) is the stored one, body and all: its requestId names the request that ran.
    if (requestId !== header && !(res.headers.get('idempotent-replayed') === 'true' && typeof requestId === 'string'))
      throw new Error(`error body requestId ${String(requestId)} is not the X-Request-Id ${header}`);
    return new Response(JSON.stringify(rest), { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The background work (request-log batches, deliveries) of every app built on a database: a test may
 * build more apps on its file's database (other stand-ins, another clock), and their work must end
 * before that database closes, or it fails against a closed pool after the file is done.
 */
const backgroundOf = new WeakMap<Database, BackgroundTasks[]>();

/**
 * One migrated database and app per test file. Tests share the database but each makes its own
 * clinics, so they never see each other's rows.
 */
export function useTestApp(options: { rateLimiter?: () => RateLimiter; providers?: (db: Database) => Partial<Providers> } = {}): TestApp {
  const holder = {} as { current: TestApp; close: () => Promise<void> };
  beforeAll(async () => {
    const queries: string[] = [];
    const database = await createTestDatabase((sql) => queries.push(sql));
    holder.current = buildTestApp(database.db, database.url, {
      rateLimiter: options.rateLimiter?.(),
      providers: options.providers?.(database.db),
      queries,
    });
    holder.close = database.close;
  });
  afterEach(() => holder.current?.clock.unfreeze());
  afterAll(async () => {
    const database = holder.current?.db;
    await Promise.all((database ? (backgroundOf.get(database) ?? []) : []).map((background) => background.settled()));
    await holder.close?.();
  });
  return new Proxy({} as TestApp, { get: (_, prop) => holder.current[prop as keyof TestApp] });
}
