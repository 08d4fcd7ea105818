import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context';

const documentOnly = new WeakMap<OpenAPIHono<AppEnv>, ((app: OpenAPIHono<AppEnv>) => void)[]>();

/**
 * Registers, when the document is first built rather than now, what only the document needs (the
 * webhook payload schemas: no request validates against them), so creating the app, and so a cold
 * Worker, skips building them (docs/architecture.md, "The Worker bundle"). Apart from openapi.ts so that
 * the app can register without loading the document's generator.
 */
export function registerForDocument(app: OpenAPIHono<AppEnv>, register: (app: OpenAPIHono<AppEnv>) => void) {
  documentOnly.set(app, [...(documentOnly.get(app) ?? []), register]);
}

/** Runs (once) what registerForDocument deferred for this app. */
export function runDocumentOnly(app: OpenAPIHono<AppEnv>) {
  for (const register of documentOnly.get(app) ?? []) register(app);
  documentOnly.delete(app);
}
