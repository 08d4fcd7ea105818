// Headers every answer carries, whatever produced it (docs/api-conventions.md, "Security headers").
import type { MiddlewareHandler } from 'hono';
import { setResponseHeaders } from './response-headers';

/**
 * X-Content-Type-Options: nosniff, so a browser never reads an answer as another type than it declares
 * (a JSON error or a stored upload run as a script or rendered as HTML). Mounted first in src/app.ts and
 * set after everything else ran, so it also covers 404s, error answers, preflights and the docs page.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  setResponseHeaders(c, [['X-Content-Type-Options', 'nosniff']]);
};

/**
 * The Content-Security-Policy of stored uploaded bytes served by the API (the logo proxy): nothing may
 * load and the document is sandboxed (no script, no same origin, no forms), so a polyglot file (an image
 * that is also HTML or SVG with script) can never run, even when opened directly in a browser.
 */
export const SERVED_UPLOAD_CSP = "default-src 'none'; sandbox";

/** The headers every answer carrying stored uploaded bytes sends (nosniff is also set by noSniff). */
export const SERVED_UPLOAD_HEADERS = {
  'Content-Security-Policy': SERVED_UPLOAD_CSP,
  'X-Content-Type-Options': 'nosniff',
} as const;
