// Headers every answer carries, whatever produced it (docs/api-conventions.md, "Security headers").
import type { MiddlewareHandler } from 'hono';

/**
 * X-Content-Type-Options: nosniff, so a browser never reads an answer as another type than it declares
 * (a JSON error or a stored upload run as a script or rendered as HTML). Mounted first in src/app.ts and
 * set after everything else ran, so it also covers 404s, error answers, preflights and the docs page.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('X-Content-Type-Options', 'nosniff');
};
