// Which values the audit trail and the request log may keep (docs/audit-log.md, "Field values"): an
// allowlist, declared per route. A value is recorded only when it is an id (a UUID, or a list of them:
// a UUID carries no name, no date, no text) or when the route declared its field safe with defineRoute's
// `recordedValues` (an amount, a status, a flag, a non-personal setting). Every other field is named with
// its value withheld, whatever its name: a field nobody declared (a new route, a new field, a nested
// object) is withheld by default. The trail is append-only and kept six years, so what reaches it stays.
import type { AuditChange } from '../../../drizzle/schema';
import { isUuid } from '../values/ids';

/** The body fields and path parameters whose values a route declared safe to record. */
export type RecordedValues = ReadonlySet<string>;

/** A route that declares nothing: ids only. */
export const IDS_ONLY: RecordedValues = new Set();

/** A value that can only be an id: a UUID, or a list of them. */
export const isIdValue = (value: unknown): boolean =>
  typeof value === 'string' ? isUuid(value) : Array.isArray(value) && value.every((item) => typeof item === 'string' && isUuid(item));

/** Values past this size (as JSON) are withheld even when declared: the trail is not a copy of the data. */
export const MAX_RECORDED_VALUE_CHARS = 1_000;

/** Whether the value of the field or path parameter `name` may be recorded. */
export function isRecordable(name: string, value: unknown, declared: RecordedValues): boolean {
  if (!declared.has(name) && !isIdValue(value)) return false;
  return (JSON.stringify(value)?.length ?? 0) <= MAX_RECORDED_VALUE_CHARS;
}

/**
 * The changes of a write body: every top-level field by name; its value (as `new`) only when
 * recordable; `old` from `before` (the values the service read before changing them) under the same rule.
 */
export function auditChanges(body: unknown, declared: RecordedValues, before?: Record<string, unknown>): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return changes;
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const hadBefore = before !== undefined && field in before;
    if (!isRecordable(field, value, declared) || (hadBefore && !isRecordable(field, before[field] ?? null, declared))) {
      changes[field] = { redacted: true };
      continue;
    }
    changes[field] = hadBefore ? { old: before[field] ?? null, new: value } : { new: value };
  }
  return changes;
}

/**
 * What the route made of a request's path parameters: `validated`, the parameters as its schema parsed
 * them (absent when they failed it); `accepted`, whether it answered below 400 (a parameter whose schema
 * takes any string, such as a provider name checked by the handler, is only known good once answered).
 */
export interface ParamOutcome {
  validated: Record<string, unknown> | undefined;
  accepted: boolean;
}

/**
 * A path parameter's value when it may be recorded, else null: an id (whatever the parameter's schema,
 * the value must be a UUID), or a parameter the route declared, whose value its schema validated and
 * the route accepted.
 */
export function recordedParam(name: string, value: string | undefined, outcome: ParamOutcome, declared: RecordedValues): string | null {
  if (value === undefined) return null;
  if (isIdValue(value)) return value;
  const valid = outcome.accepted && outcome.validated?.[name] === value;
  return declared.has(name) && valid && isRecordable(name, value, declared) ? value : null;
}

/**
 * The path as the request log keeps it: the route's pattern with each parameter that may be recorded
 * filled in (`/api/v1/orders/0b6f...`), any other left as its placeholder (`/api/v1/orders/{id}` for
 * `/api/v1/orders/tess.dunn@example.com`).
 */
export function recordedPath(pattern: string, params: Record<string, string>, outcome: ParamOutcome, declared: RecordedValues): string {
  return pattern.replace(/\{([^}]+)\}/g, (placeholder, name: string) => {
    const value = recordedParam(name, params[name], outcome, declared);
    return value === null ? placeholder : encodeURIComponent(value);
  });
}
