// The development simulator's shared checks (/_dev/*: docs/order-lifecycle.md, "Development simulator").
// Its routes are plain Hono, not API operations, so they are not in the OpenAPI document.
import type { Context, MiddlewareHandler } from 'hono';
import { findKeyPrincipal } from '../auth/key-auth';
import type { AppEnv, KeyPrincipal } from '../context';
import { ERROR_MESSAGES } from '../values/error-messages';
import { ApiError, unauthorized } from '../values/errors';
import { onNotFound } from './error-handler';
import { checkKeyAccess } from './route';

/**
 * Mounted once on /_dev/* (src/app.ts): without DEV_SIMULATOR="true" (readConfig refuses it in production) every
 * /_dev path answers exactly the generic 404 of an unknown route, so the simulator does not exist.
 */
export const devSimulatorOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('services').config.devSimulator) return onNotFound(c);
  await next();
};

/**
 * The caller of a simulator route: a valid secret key with the write scope (401, then the usual 403s).
 * `sandbox: false` refuses sandbox keys, as the routes the simulated events belong to do.
 */
export async function devSimulatorKey(c: Context<AppEnv>, options: { sandbox?: boolean } = {}): Promise<KeyPrincipal> {
  const { db, now } = c.get('services');
  const key = await findKeyPrincipal(db, c.req.header('x-api-key'), now());
  if (!key) throw unauthorized();
  checkKeyAccess(key, { auth: 'key', scope: 'write', ...options }, c.req.path);
  return key;
}

/** The JSON body of a simulator request; an empty body is `{}` when `optional`. 400 INVALID_JSON otherwise. */
export async function devSimulatorBody(c: Context<AppEnv>, options: { optional?: boolean } = {}): Promise<unknown> {
  const text = await c.req.text();
  if (options.optional && text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', ERROR_MESSAGES.INVALID_JSON);
  }
}
