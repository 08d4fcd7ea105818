import type { Environment } from './environment';
import { ConfigError } from './errors';

/** The Worker bindings and variables that say where PostgreSQL is. */
export interface DatabaseEnv {
  /** Cloudflare Hyperdrive in front of PostgreSQL; when bound, it is how the Worker reaches the database. */
  HYPERDRIVE?: { connectionString: string };
  /** Postgres connection string, used when no HYPERDRIVE binding is set; a Neon host uses the Neon serverless driver. */
  DATABASE_URL?: string;
  /** Force a driver for DATABASE_URL: "neon" (WebSocket pool) or "pg" (TCP). Default: chosen from the host. */
  DATABASE_DRIVER?: string;
  /** At most this many database connections open at once per isolate; more requests wait (default 20). */
  DATABASE_MAX_CONNECTIONS?: string;
  /**
   * "true" (development and test only, refused in production): DATABASE_URL even when HYPERDRIVE is bound.
   * `npm run dev` sets it: wrangler's local Hyperdrive proxy dies on a reset socket (README, "How `npm
   * run dev` reaches the database").
   */
  DATABASE_BYPASS_HYPERDRIVE?: string;
}

export type DatabaseDriver = 'neon' | 'pg';

declare global {
  /**
   * Replaced by wrangler's build ([define] in wrangler.toml); undeclared under Node and the workers tests,
   * so read it only behind `typeof`. Tested where the bundler must see a constant (src/platform/db/client.ts).
   */
  const __DATABASE_DRIVER__: DatabaseDriver | undefined;
}

/**
 * The one driver a wrangler build carries (wrangler.toml: "pg" by default, "neon" with `--env neon`), so
 * the other driver's code is left out of the upload. Undefined where both are loaded on demand (Node:
 * tests, scripts; the workers tests, which Vite bundles without wrangler's [define]).
 */
export const BUNDLED_DATABASE_DRIVER: DatabaseDriver | undefined =
  typeof __DATABASE_DRIVER__ === 'undefined' ? undefined : __DATABASE_DRIVER__;

export interface DatabaseConfig {
  url: string;
  driver: DatabaseDriver;
  /** How the connection string was found, for logs and docs: the Hyperdrive binding or DATABASE_URL. */
  source: 'hyperdrive' | 'database_url';
  /** Connections open at once per isolate (the connection gate). */
  maxConnections: number;
}

export const DEFAULT_MAX_CONNECTIONS = 20;

export function pickDatabaseDriver(url: string, forced?: string): DatabaseDriver {
  if (forced === 'neon' || forced === 'pg') return forced;
  if (forced) throw new ConfigError(`DATABASE_DRIVER must be "neon" or "pg", not "${forced}"`);
  return hostOf(url).endsWith('.neon.tech') ? 'neon' : 'pg';
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    throw new ConfigError('The database connection string is not a valid URL');
  }
}

/** Loopback only: a deployed Worker can never reach such a database, so only a local run can. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The one place that decides how the Worker reaches PostgreSQL. A HYPERDRIVE binding wins (node-postgres
 * on its connection string, pooled by Hyperdrive); otherwise DATABASE_URL, with the Neon serverless
 * driver for *.neon.tech hosts (use Neon's -pooler endpoint) and node-postgres for anything else.
 * Outside production DATABASE_BYPASS_HYPERDRIVE="true" skips the binding.
 */
export function readDatabaseConfig(
  env: DatabaseEnv,
  environment: Environment,
  bundled: DatabaseDriver | undefined = BUNDLED_DATABASE_DRIVER,
): DatabaseConfig {
  const config = chooseDatabase(env, environment);
  // Refused here, with every other configuration mistake, rather than at the first query.
  if (bundled && config.driver !== bundled) {
    const asked =
      config.source === 'hyperdrive'
        ? 'a HYPERDRIVE binding'
        : env.DATABASE_DRIVER
          ? `DATABASE_DRIVER=${env.DATABASE_DRIVER}`
          : `a DATABASE_URL on ${config.driver === 'neon' ? 'a *.neon.tech host' : 'a host other than *.neon.tech'}`;
    throw new ConfigError(
      bundled === 'pg'
        ? `This Worker was built without the Neon driver (the default build carries node-postgres only), but its configuration asks for it (${asked}): deploy it with \`wrangler deploy --env neon\`, or use Hyperdrive (README, "Choosing the database connection")`
        : `This Worker was built with the Neon driver only (\`wrangler deploy --env neon\`), but its configuration asks for node-postgres (${asked}): deploy the default build, or set DATABASE_URL to Neon's -pooler connection string (README, "Choosing the database connection")`,
    );
  }
  return config;
}

function chooseDatabase(env: DatabaseEnv, environment: Environment): DatabaseConfig {
  const maxConnections = Number(env.DATABASE_MAX_CONNECTIONS ?? DEFAULT_MAX_CONNECTIONS);
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 1000) {
    throw new ConfigError('DATABASE_MAX_CONNECTIONS must be a whole number from 1 to 1000');
  }
  const bypassHyperdrive = env.DATABASE_BYPASS_HYPERDRIVE === 'true';
  if (bypassHyperdrive && environment === 'production') {
    throw new ConfigError('DATABASE_BYPASS_HYPERDRIVE is for development and test only; unset it in production');
  }
  if (env.HYPERDRIVE?.connectionString && !bypassHyperdrive) {
    hostOf(env.HYPERDRIVE.connectionString);
    return { url: env.HYPERDRIVE.connectionString, driver: 'pg', source: 'hyperdrive', maxConnections };
  }
  if (!env.DATABASE_URL) {
    throw new ConfigError(
      bypassHyperdrive ? 'DATABASE_BYPASS_HYPERDRIVE needs DATABASE_URL' : 'Neither a HYPERDRIVE binding nor DATABASE_URL is set',
    );
  }
  return {
    url: env.DATABASE_URL,
    driver: pickDatabaseDriver(env.DATABASE_URL, env.DATABASE_DRIVER),
    source: 'database_url',
    maxConnections,
  };
}
