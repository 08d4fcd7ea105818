// Everything the rehearsal's Worker talks to, started locally: PostgreSQL behind PgBouncer in
// transaction mode (what Hyperdrive is), a Redis behind the Upstash REST stand-in, and a stand-in per
// vendor (Stripe payments and billing, Resend email and domains, Twilio, Cloudflare custom hostnames,
// QStash, Cloudflare's DNS over HTTPS, brands' webhook receivers), each reached by the Worker at the vendor's real https host
// (outbound.ts). Then the deploy bundle in workerd (worker.ts) with ENVIRONMENT=production and every
// production secret set to a generated value.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/platform/db/client';
import { type MessagingStandIn, startMessagingStandIn } from '../../test/integration/messaging-stand-in';
import { type CloudflareStandIn, startCloudflareStandIn } from '../../test/tooling/cloudflare-stand-in';
import { type DohStandIn, startDohStandIn } from '../../test/tooling/doh-stand-in';
import { type QStashStandIn, startQStashStandIn } from '../../test/tooling/qstash-stand-in';
import { type ResendDomainsStandIn, startResendDomainsStandIn } from '../../test/tooling/resend-domains-stand-in';
import { type StripeBillingStandIn, startStripeBillingStandIn } from '../../test/tooling/stripe-billing-stand-in';
import { newSecretKey } from '../../test/tooling/stripe-http';
import { type StripeStandIn, startStripeStandIn } from '../../test/tooling/stripe-stand-in';
import { startTwilioNumbersStandIn, type TwilioNumbersStandIn } from '../../test/tooling/twilio-numbers-stand-in';
import { startUpstashRestServer, type UpstashRestServer } from '../../test/tooling/upstash-rest-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/tooling/webhook-receiver';
import { findOrInstallPgbouncer, type RunningPgbouncer, startPgbouncer } from '../bench/pgbouncer';
import { connect, databaseUrl, withClient } from '../lib/database';
import { freePort, startEmbeddedPostgres } from '../lib/embedded-postgres';
import { migrateDatabase } from '../lib/migrations';
import { createOutboundRouter, type OutboundRouter } from './outbound';
import { buildDeployBundle, type DeployBundle, type RehearsalWorker, startRehearsalWorker } from './worker';

/** Public addresses the DoH stand-in answers for the brands' webhook hosts (the Worker checks them before every call). */
export const PUBLIC_ADDRESSES = { A: ['93.184.215.14'], AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] };

/**
 * The deployment's public names (none resolves on the internet; the outbound router and the QStash
 * stand-in map them, and the DoH stand-in gives the brands' webhook hosts public addresses).
 */
export const HOSTS = {
  api: 'api.rehearsal-brand-admin.example',
  checkout: 'checkout.rehearsal-brand-admin.example',
  cdn: 'cdn.rehearsal-brand-admin.example',
  storefronts: 'storefronts.rehearsal-brand-admin.example',
  webhooks: 'hooks.rehearsal-brand.example',
  failingWebhooks: 'hooks-down.rehearsal-brand.example',
  /** A brand's webhook host that points at a public address when registered and at loopback afterwards. */
  rebindingWebhooks: 'rebind.rehearsal-brand.example',
  upstash: 'rehearsal-12345.upstash.io',
} as const;

export const DATABASE = 'brand_admin';

export interface Stack {
  bundle: DeployBundle;
  worker: RehearsalWorker;
  outbound: OutboundRouter;
  /** The production variables the Worker was started with (generated secrets included). */
  variables: Record<string, string>;
  /** The platform's own connection to the database (through the pooler), for what the platform does outside this API. */
  platformDb: Database;
  databaseUrl: string;
  pooled: boolean;
  stripe: StripeStandIn;
  stripeBilling: StripeBillingStandIn;
  messaging: MessagingStandIn;
  resendDomains: ResendDomainsStandIn;
  twilio: TwilioNumbersStandIn;
  cloudflare: CloudflareStandIn;
  qstash: QStashStandIn;
  /** Cloudflare's DNS over HTTPS (https://cloudflare-dns.com/dns-query): what the Worker resolves webhook hosts with. */
  dns: DohStandIn;
  upstash: UpstashRestServer;
  receiver: WebhookReceiver;
  failingReceiver: WebhookReceiver;
  /** Worker log lines so far. */
  logs: string[];
  /** QStash's delivery loop: calls back what is due, every `ms`, until stopped. */
  startQStashDelivery(): void;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** A running PostgreSQL server (postgres://user:pass@host:port/postgres) and a migrated template to clone; default: an embedded one. */
  server?: { url: string; template?: string };
  log?: (message: string) => void;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
    { stdio: 'ignore' },
  );
  let failed: Error | null = null;
  child.on('error', (error) => {
    failed = error;
  });
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (failed) throw new Error(`redis-server could not start (${(failed as Error).message}); the rehearsal needs Redis installed`);
    if (waited > 10_000) throw new Error('redis-server did not answer in 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A generated secret of `bytes` random bytes, base64. */
const secret = (bytes = 32) => randomBytes(bytes).toString('base64');

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? (() => {});
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    // --- PostgreSQL, migrated, behind PgBouncer (transaction mode) ---
    const buildStarted = buildDeployBundle();
    buildStarted.catch(() => undefined);
    let serverUrl = options.server?.url;
    if (!serverUrl) {
      const dataDir = mkdtempSync(join(tmpdir(), 'brand-admin-rehearsal-pg-'));
      const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, maxConnections: 100 });
      stops.push(async () => {
        await pg.stop();
        rmSync(dataDir, { recursive: true, force: true });
      });
      serverUrl = pg.url;
    }
    const name = `${DATABASE}_rehearsal_${process.pid}`;
    await withClient(serverUrl, async (client) => {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`create database ${name}${options.server?.template ? ` template ${options.server.template}` : ''}`);
    });
    stops.push(() => withClient(serverUrl!, (client) => client.query(`drop database if exists ${name} with (force)`)));
    const direct = databaseUrl(serverUrl, name);
    if (!options.server?.template) await migrateDatabase(direct);

    const server = new URL(serverUrl);
    const binary = findOrInstallPgbouncer(log);
    let pooledUrl = direct;
    let bouncer: RunningPgbouncer | null = null;
    if (binary) {
      const dir = mkdtempSync(join(tmpdir(), 'brand-admin-rehearsal-pgbouncer-'));
      if (process.getuid?.() === 0) {
        const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
        chownSync(dir, uid, uid);
      }
      bouncer = await startPgbouncer({
        binary,
        dir,
        serverPort: Number(server.port),
        database: name,
        user: decodeURIComponent(server.username),
        password: decodeURIComponent(server.password),
        poolSize: 10,
      });
      stops.push(async () => {
        await bouncer!.stop();
        rmSync(dir, { recursive: true, force: true });
      });
      const url = new URL(direct);
      url.port = String(bouncer.port);
      pooledUrl = url.toString();
    } else log('PgBouncer is missing: the Hyperdrive binding connects to PostgreSQL directly (no transaction-mode pooler).');
    const platform = connect(pooledUrl, 4);
    stops.push(platform.close);

    // --- Redis and the Upstash REST stand-in ---
    const redis = await startRedis();
    stops.push(redis.stop);
    const upstash = await startUpstashRestServer({ redisUrl: redis.url });
    stops.push(upstash.close);

    // --- vendors ---
    const stripeKey = newSecretKey();
    const resendKey = `re_${randomBytes(12).toString('hex')}`;
    const [stripe, stripeBilling, messaging, resendDomains, twilio, cloudflare, qstash, dns, receiver, failingReceiver] = await Promise.all(
      [
        startStripeStandIn({ secretKey: stripeKey }),
        startStripeBillingStandIn({ secretKey: stripeKey }),
        startMessagingStandIn({ resendKey }),
        startResendDomainsStandIn({ apiKey: resendKey }),
        startTwilioNumbersStandIn(),
        startCloudflareStandIn(),
        startQStashStandIn(),
        startDohStandIn(),
        startWebhookReceiver(),
        startWebhookReceiver(),
      ],
    );
    for (const s of [stripe, stripeBilling, messaging, resendDomains, twilio, cloudflare, qstash, dns, receiver, failingReceiver])
      stops.push(() => s.close());
    for (const host of [HOSTS.webhooks, HOSTS.failingWebhooks, HOSTS.rebindingWebhooks]) dns.set(host, PUBLIC_ADDRESSES);
    failingReceiver.mode = 'fail';
    // QStash backs a failed callback off before the next try (exponentially; here 1, 2, 4, 8 s).
    qstash.retryBackoffSeconds = (retried) => Math.min(2 ** (retried - 1), 8);

    const stripeOrigin = `http://${stripe.host}:${stripe.port}`;
    const outbound = createOutboundRouter([
      // Stripe: the payment processor's calls and the billing processor's, one host as at Stripe.
      { host: 'api.stripe.com', pathPrefix: '/v1/prices', target: stripeOrigin },
      { host: 'api.stripe.com', pathPrefix: '/v1/refunds', target: stripeOrigin },
      { host: 'api.stripe.com', pathPrefix: '/v1/transfers', target: stripeOrigin },
      { host: 'api.stripe.com', target: `http://${stripeBilling.host}:${stripeBilling.port}` },
      { host: 'api.resend.com', pathPrefix: '/emails', target: messaging.baseUrl },
      { host: 'api.resend.com', pathPrefix: '/domains', target: resendDomains.baseUrl },
      // Twilio: the platform's SMS sender's account (Messages.json) and a clinic's own account (numbers).
      { host: 'api.twilio.com', pathPrefix: `/2010-04-01/Accounts/${messaging.twilioSid}/`, target: messaging.baseUrl },
      { host: 'api.twilio.com', pathPrefix: `/2010-04-01/Accounts/${twilio.accountSid}/`, target: twilio.baseUrl },
      { host: 'api.cloudflare.com', target: new URL(cloudflare.baseUrl).origin },
      { host: 'qstash.upstash.io', target: qstash.url },
      { host: 'cloudflare-dns.com', target: new URL(dns.url).origin },
      { host: HOSTS.upstash, target: upstash.url },
      { host: HOSTS.webhooks, target: receiver.url },
      { host: HOSTS.failingWebhooks, target: failingReceiver.url },
    ]);
    stops.push(async () => outbound.releaseHangs());

    // --- the Worker: production variables and generated secrets ---
    const variables: Record<string, string> = {
      JWT_SECRET: secret(48),
      ROOT_SECRET_KEY: secret(32),
      UPSTASH_REDIS_REST_URL: `https://${HOSTS.upstash}`,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      STRIPE_SECRET_KEY: stripeKey,
      QSTASH_TOKEN: qstash.token,
      QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
      PUBLIC_BASE_URL: `https://${HOSTS.api}`,
      CHECKOUT_EMBED_BASE_URL: `https://${HOSTS.checkout}/embed/`,
      // The bucket's public domain (docs/uploads.md: the Worker does not serve /uploads/<key> itself).
      UPLOADS_PUBLIC_BASE_URL: `https://${HOSTS.cdn}`,
      RESEND_API_KEY: resendKey,
      EMAIL_FROM: 'Brand Admin <no-reply@mail.rehearsal-brand-admin.example>',
      TWILIO_ACCOUNT_SID: messaging.twilioSid,
      TWILIO_AUTH_TOKEN: messaging.twilioToken,
      TWILIO_FROM_NUMBER: '+15550100000',
      CLOUDFLARE_API_TOKEN: cloudflare.apiToken,
      CLOUDFLARE_ZONE_ID: cloudflare.zoneId,
      CUSTOM_DOMAIN_CNAME_TARGET: HOSTS.storefronts,
      PLATFORM_DOMAINS: 'rehearsal-brand-admin.example',
      CRM_OAUTH_REDIRECT_URL: `https://${HOSTS.api}/crm/oauth/callback`,
      CRM_OAUTH_HUBSPOT_CLIENT_ID: `hubspot-${randomBytes(6).toString('hex')}`,
    };
    const bundle = await buildStarted;
    const logs: string[] = [];
    const worker = await startRehearsalWorker({
      bundle,
      variables,
      hyperdriveUrl: pooledUrl,
      outbound,
      log: (line) => {
        logs.push(line);
        log(`[worker] ${line}`);
      },
    });
    stops.push(() => worker.dispose());
    stops.push(async () => rmSync(bundle.dir, { recursive: true, force: true }));

    // QStash calls the public callback URL; the "DNS" of the rehearsal is the Worker's local address.
    const callWorker = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string }) => {
      const target = new URL(url);
      if (target.host !== HOSTS.api) return Promise.resolve(new Response('unknown host', { status: 502 }));
      return fetch(`${worker.url}${target.pathname}${target.search}`, init);
    };
    // QStash's way of calling back: each message as soon as it is published, concurrently (not a poll
    // of every due message, one after another, which held each callback behind the slowest).
    let stopDelivery: (() => Promise<void>) | null = null;
    const startQStashDelivery = () => {
      if (stopDelivery) return;
      stopDelivery = qstash.deliverContinuously(callWorker, (error) => log(`qstash delivery: ${String(error)}`));
    };
    stops.push(async () => {
      await stopDelivery?.();
    });

    return {
      bundle,
      worker,
      outbound,
      variables,
      platformDb: platform.db,
      databaseUrl: pooledUrl,
      pooled: bouncer !== null,
      stripe,
      stripeBilling,
      messaging,
      resendDomains,
      twilio,
      cloudflare,
      qstash,
      dns,
      upstash,
      receiver,
      failingReceiver,
      logs,
      startQStashDelivery,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
