// The request's side of the recorded-values rule (src/platform/audit/fields.ts): what the route's guard
// noted about the matched route (its pattern, its parameters as sent, its declaration), turned into the
// path and the path ids that a request-log row, an audit row and a log line may hold.
import type { Context } from 'hono';
import { IDS_ONLY, type ParamOutcome, recordedParam, recordedPath } from '../audit/fields';
import type { AppEnv } from '../context';

/** What the route made of the path parameters, for a request answered with `status`. */
function outcomeOf(c: Context<AppEnv>, status: number): ParamOutcome {
  const validated = (c.req as unknown as { valid(target: 'param'): Record<string, unknown> | undefined }).valid('param');
  return { validated, accepted: status < 400 };
}

/**
 * The request's path as it may be recorded (the pattern, the parameters that may be recorded filled in)
 * for a request answered with `status`; null when no route matched.
 */
export function recordedPathOf(c: Context<AppEnv>, status: number): string | null {
  const pattern = c.get('routePattern');
  if (!pattern) return null;
  return recordedPath(pattern, c.get('routeParams') ?? {}, outcomeOf(c, status), c.get('recordedValues') ?? IDS_ONLY);
}

/** A path parameter's value as it may be recorded for a request answered with `status`, else null. */
export function recordedParamOf(c: Context<AppEnv>, name: string, status: number): string | null {
  return recordedParam(name, c.get('routeParams')?.[name], outcomeOf(c, status), c.get('recordedValues') ?? IDS_ONLY);
}
