import type { MiddlewareHandler } from 'hono';
import { invalidFields } from '../values/errors';

/**
 * Strict query strings (docs/api-conventions.md, "Unknown query parameters"): a parameter the
 * operation does not declare is a 400 naming it, as Stripe answers, never silently ignored (a typo such
 * as `?stauts=paid` would otherwise answer the unfiltered list with a 200).
 */
export function onlyQueryParams(allowed: readonly string[]): MiddlewareHandler {
  const known = new Set(allowed);
  const takes = allowed.length ? `this operation takes ${allowed.join(', ')}` : 'this operation takes no query parameters';
  return async (c, next) => {
    const url = c.req.url;
    // Most requests carry no query string: nothing to parse.
    if (url.includes('?')) {
      const unknown = [...new Set(new URL(url).searchParams.keys())].filter((name) => !known.has(name));
      if (unknown.length) {
        throw invalidFields(
          unknown.map((name) => ({ field: `query.${name}`, message: `Unknown query parameter; ${takes}` })),
          'query',
        );
      }
    }
    await next();
  };
}

interface ZodLike {
  shape?: Record<string, unknown>;
  def?: { type?: string; in?: unknown; innerType?: unknown; schema?: unknown };
  _def?: { type?: string; in?: unknown; innerType?: unknown; schema?: unknown };
}

/**
 * The parameter names a route's query schema declares (the keys of its z.object, through pipes,
 * transforms and wrappers). A schema whose keys cannot be read is a mistake at declaration time.
 */
export function declaredQueryNames(schema: unknown, where: string): string[] {
  let current = schema as ZodLike | undefined;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current.shape && typeof current.shape === 'object') return Object.keys(current.shape);
    const def = current.def ?? current._def;
    current = (def?.in ?? def?.innerType ?? def?.schema) as ZodLike | undefined;
  }
  throw new Error(`${where}: the query schema must be a z.object (its keys are the parameters the operation accepts)`);
}
