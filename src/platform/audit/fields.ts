// Which fields an audit row may show the values of (docs/audit-log.md, "What a row holds"). Fields
// holding patient data or secrets are listed by name only: the list below, written once, is matched
// against every field name of a written body (case and separators ignored), at every depth.
import type { AuditChange } from '../../../drizzle/schema';

/**
 * Parts of a field name that mark patient data (names, contact details, addresses, dates of birth,
 * medical answers, free-text notes and messages) or a secret (tokens, keys, passwords, credentials).
 * A field whose normalised name contains one of them is recorded by name only.
 */
export const SENSITIVE_FIELD_PARTS = [
  // patient data
  'email',
  'phone',
  'mobile',
  'firstname',
  'lastname',
  'fullname',
  'middlename',
  'patient',
  'customer',
  'address',
  'street',
  'city',
  'zip',
  'postal',
  'birth',
  'dob',
  'gender',
  'sex',
  'answer',
  'medical',
  'medication',
  'allerg',
  'condition',
  'symptom',
  'diagnos',
  'weight',
  'height',
  'note',
  'message',
  'comment',
  'body',
  // secrets
  'token',
  'secret',
  'password',
  'apikey',
  'credential',
  'signing',
  'privatekey',
  'authorization',
] as const;

/**
 * Resources whose every field is patient data (a person's record or what they wrote): their writes
 * record field names only, whatever the names (a contact's `name` is a patient's name).
 */
export const PATIENT_RESOURCES = new Set([
  'contact',
  'customer',
  'order',
  'patient',
  'intake_request',
  'conversation',
  'refund_request',
  'titration_schedule',
]);

const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function isSensitiveField(name: string): boolean {
  const n = normalise(name);
  return n === 'name' ? false : SENSITIVE_FIELD_PARTS.some((part) => n.includes(part));
}

/** Whether a value holds a sensitive field anywhere inside it (objects and arrays, walked). */
function holdsSensitive(value: unknown, depth = 0): boolean {
  if (depth > 8 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => holdsSensitive(item, depth + 1));
  return Object.entries(value).some(([key, inner]) => isSensitiveField(key) || holdsSensitive(inner, depth + 1));
}

/** Values past this size (as JSON) are recorded by name only: the trail is not a copy of the data. */
export const MAX_AUDITED_VALUE_CHARS = 1_000;

/**
 * The changes of a write body: every top-level field by name; its value (as `new`) only when neither
 * the field nor anything inside it is sensitive, the resource is not patient data, and the value is
 * small; `old` from `before` (the values the service read before changing them) under the same rule.
 */
export function auditChanges(targetType: string, body: unknown, before?: Record<string, unknown>): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return changes;
  const patientResource = PATIENT_RESOURCES.has(targetType);
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const shown = (v: unknown) =>
      !patientResource && !isSensitiveField(field) && !holdsSensitive(v) && (JSON.stringify(v)?.length ?? 0) <= MAX_AUDITED_VALUE_CHARS;
    if (!shown(value) || (before && field in before && !shown(before[field]))) {
      changes[field] = { redacted: true };
      continue;
    }
    changes[field] = before && field in before ? { old: before[field] ?? null, new: value } : { new: value };
  }
  return changes;
}
