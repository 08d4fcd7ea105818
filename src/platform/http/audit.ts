// The audit trail's writes, made once for every route by defineRoute (docs/audit-log.md):
// - auditWrite: every write (POST/PUT/PATCH/DELETE) by a key or a brand-admin token that succeeds gets
//   one audit row in the same transaction as its change. Under an Idempotency-Key the request already
//   runs in one transaction (idempotency.ts) and the row joins it; otherwise this opens one around the
//   handler (a thrown refusal or a 5xx rolls the handler's writes back, as under an Idempotency-Key,
//   unless the refusal keeps them: keepingWrites in values/errors.ts).
// - auditPatientRead: a read of patient data (routes declaring `patientData`) gets one row per resource
//   read, ids only, written after the answer in the background.
import type { Context, MiddlewareHandler } from 'hono';
import { auditChanges, IDS_ONLY, isIdValue } from '../audit/fields';
import { type AuditEventInput, appendAuditEvents, auditInsert } from '../audit/trail';
import type { AppEnv, Services } from '../context';
import type { Database } from '../db/client';
import { classifyDatabaseError } from '../db/errors';
import { requestTransaction } from '../db/request-transaction';
import { describeError, logLine } from '../log';
import { admitted } from './admission';
import { nextInTransaction, rollsBack } from './idempotency';
import { clientIp } from './rate-limits';
import { recordedParamOf } from './recorded';

/** Verbs of POST operations that change nothing (they compute an answer): not audited. */
const NOT_CHANGING = new Set(['count', 'preview']);

const IRREGULAR: Record<string, string> = { send: 'sent', set: 'set', reset: 'reset', withdraw: 'withdrawn', run: 'ran' };

/** create -> created, apply -> applied, replay -> replayed, send -> sent. */
export function pastTense(verb: string): string {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  return `${verb}ed`;
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The operation's verb and resource: updateCoupon -> { verb: 'update', resource: 'coupon' }. */
export function operationParts(operationId: string): { verb: string; resource: string } {
  const match = /^([a-z]+)([A-Z].*)?$/.exec(operationId);
  const verb = match?.[1] ?? operationId;
  const rest = match?.[2] ?? '';
  return { verb, resource: rest ? snake(rest) : 'resource' };
}

/** The audited action of a write operation: createCoupon -> coupon.created; null for a non-changing one. */
export function writeAction(operationId: string): { action: string; targetType: string } | null {
  const { verb, resource } = operationParts(operationId);
  if (NOT_CHANGING.has(verb)) return null;
  // A plural resource (createCoupons, deleteTags) is named in the singular.
  const targetType = resource.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');
  return { action: `${targetType}.${pastTense(verb)}`, targetType };
}

/** The path's own id (`id`, else the last path parameter) when its value may be recorded (an id, a declared and valid value). */
function pathTarget(c: Context<AppEnv>, path: string): string | null {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return null;
  return recordedParamOf(c, names.includes('id') ? 'id' : names[names.length - 1]!, c.res.status);
}

/** The created resource's id in a JSON answer ({ data: { id } }) when it is an id (a UUID or a number), or null. */
async function answerTarget(res: Response): Promise<string | null> {
  if (!res.headers.get('content-type')?.includes('application/json')) return null;
  try {
    const body = (await res.clone().json()) as { data?: { id?: unknown } };
    const id = body?.data?.id;
    return isIdValue(id) || (typeof id === 'number' && Number.isSafeInteger(id)) ? String(id) : null;
  } catch {
    return null;
  }
}

/** Who is acting and from where, as the row records it. */
function actorOf(
  c: Context<AppEnv>,
): Pick<AuditEventInput, 'clinicId' | 'actorKind' | 'actorId' | 'actorLabel' | 'ip' | 'userAgent' | 'requestId'> | null {
  const key = c.get('apiKey');
  const user = key ? undefined : c.get('user');
  if (!key && !user) return null;
  return {
    clinicId: key ? key.clinicId : user!.clinicId,
    actorKind: key ? 'key' : 'user',
    actorId: key ? key.keyId : user!.userId,
    actorLabel: key ? key.keyPrefix : (user!.email ?? null),
    ip: clientIp(c),
    userAgent: c.req.header('user-agent') ?? null,
    requestId: c.get('requestId') ?? null,
  };
}

/** The body the route validated: JSON (values as the route's recorded values allow), or a form's field names. */
function writtenBody(c: Context<AppEnv>): unknown {
  const req = c.req as unknown as { valid(target: string): unknown };
  const json = req.valid('json');
  if (json !== undefined) return json;
  const form = req.valid('form');
  if (form && typeof form === 'object') return Object.fromEntries(Object.keys(form).map((k) => [k, { file: true }]));
  return undefined;
}

/** Thrown inside the transaction to roll it back (the answer is a refusal or a 5xx). */
class RollBack extends Error {
  constructor() {
    super('audit: roll back the transaction');
    this.name = 'RollBack';
  }
}

/** The audit note of a request: what a service read before changing it, for the row's old values. */
export interface AuditNote {
  before?: Record<string, unknown>;
}

export function auditWrite(operationId: string, path: string): MiddlewareHandler<AppEnv> {
  const described = writeAction(operationId);
  return async (c, next) => {
    const who = actorOf(c);
    if (!described || !who) return next();
    const note: AuditNote = {};
    /** The row of a write that succeeded; none for a refusal (even one that keeps its writes) or a 5xx. */
    const event = async (): Promise<AuditEventInput | null> => {
      if (c.error || c.res.status >= 400) return null;
      const targetId = pathTarget(c, path) ?? (await answerTarget(c.res));
      return {
        ...who,
        action: described.action,
        route: path,
        targetType: described.targetType,
        targetId,
        changes: auditChanges(writtenBody(c), c.get('recordedValues') ?? IDS_ONLY, note.before),
      };
    };
    const services = c.get('services');
    const withNote = (db: Database) => Object.assign(Object.create(services) as Services, { db, auditNote: note });
    if (c.get('inRequestTransaction')) {
      // Under an Idempotency-Key: the request's transaction is the services' db already, and the row
      // rides the statement that keeps the answer (idempotency.ts): no statement of its own.
      c.set('services', withNote(services.db));
      try {
        await next();
      } finally {
        c.set('services', services);
      }
      const row = await event();
      if (row) c.set('auditEvents', [row]);
      return;
    }
    try {
      // BEGIN goes with the handler's first statement, and the audit row with COMMIT
      // (request-transaction.ts): a write of one statement costs two round trips.
      await requestTransaction(services.db, async (tx) => {
        await nextInTransaction(c, next, withNote(tx as unknown as Database));
        if (rollsBack(c)) throw new RollBack();
        await admitted(c); // nothing commits before the rate-limit store lets the request through
        const row = await event();
        return row ? auditInsert(tx, [row]).getSQL() : undefined;
      });
    } catch (error) {
      // Rolled back on purpose, or the rollback itself failed (the connection is gone): the answer stands.
      if (error instanceof RollBack) return;
      if (rollsBack(c) && classifyDatabaseError(error) === 'unavailable') return;
      throw error;
    }
  };
}

/** How a route that reads patient data names what it read (docs/audit-log.md, "Patient-data reads"). */
export interface PatientDataRead {
  /** The resource read, e.g. order, customer, contact. */
  targetType: string;
}

/** The ids a patient-data answer holds: the path's id, or each item's id of a list ({ data: [{ id }] }). */
async function idsRead(c: Context<AppEnv>, path: string): Promise<(string | null)[]> {
  const fromPath = pathTarget(c, path);
  if (fromPath) return [fromPath];
  if (!c.res.headers.get('content-type')?.includes('application/json')) return [null];
  try {
    const body = (await c.res.clone().json()) as { data?: unknown };
    const items = Array.isArray(body?.data) ? body.data : [];
    return items
      .map((item) => (item && typeof item === 'object' && 'id' in item ? String((item as { id: unknown }).id) : null))
      .filter(Boolean);
  } catch {
    return [null];
  }
}

/**
 * Notes the resources a patient-data read answered; recordPatientReads writes them once the answer is
 * known to go out (a cached key's read may still be answered 429 by the gateway after the handler).
 */
export function auditPatientRead(read: PatientDataRead, path: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const who = actorOf(c);
    if (!who || c.error || c.res.status >= 400) return;
    const ids = await idsRead(c, path);
    if (ids.length === 0) return;
    c.set(
      'patientReads',
      ids.map((targetId) => ({ ...who, action: 'patient_data.read', route: path, targetType: read.targetType, targetId })),
    );
  };
}

/**
 * Called by the app after the whole pipeline (src/app.ts): the noted patient-data reads of an answer
 * that went out are written after it, in the background, like the request log — lost if the Worker
 * stops first (docs/audit-log.md, the loss window).
 */
export function recordPatientReads(c: Context<AppEnv>, services: Services): void {
  const rows = c.get('patientReads');
  if (!rows?.length || c.res.status >= 400) return;
  services.background(
    appendAuditEvents(services.db, rows).catch((error: unknown) => {
      logLine('error', 'audit: a patient-data read could not be recorded', { route: rows[0]!.route, error: describeError(error) });
    }),
  );
}
