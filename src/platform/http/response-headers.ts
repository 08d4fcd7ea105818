import type { Context } from 'hono';

/**
 * Sets (or, for undefined, removes) response headers. Once a handler has answered, Hono's c.header()
 * copies the whole response for every call (a new Response with all its headers), in case the answer's
 * headers cannot be changed (a Response from fetch). The headers of an answer made here can be changed,
 * so they are changed in place; only an answer whose headers refuse it (TypeError) is copied, once, by
 * c.header(), and the other changes are made on that copy.
 */
export function setResponseHeaders(c: Context, changes: Iterable<readonly [string, string | undefined]>): void {
  for (const [name, value] of changes) {
    if (c.finalized) {
      try {
        change(c.res.headers, name, value);
        continue;
      } catch (error) {
        // Immutable headers: c.header() below copies the answer once; the copy's headers change in place.
        if (!(error instanceof TypeError)) throw error;
      }
    }
    c.header(name, value);
  }
}

function change(headers: Headers, name: string, value: string | undefined): void {
  if (value === undefined) headers.delete(name);
  else headers.set(name, value);
}
