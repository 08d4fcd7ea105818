// The development simulator's checkout: completes a session as a patient's checkout would, in one
// transaction (docs/checkout.md, "Development simulator").
import { and, eq } from 'drizzle-orm';
import { checkoutSessions, patients } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Queryable } from '../../../platform/db/client';
import { recordOutboxEvent } from '../../../platform/events/outbox';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { type ProgramRow, priceProduct, pricingInput, readProgram } from '../../catalog';
import { applyPlatformEvent, type CreateOrderItem, createOrder } from '../../orders';
import type { CompleteSessionBody } from './schemas';
import { effectiveStatus } from './service';

/**
 * One item per sellable product of the program (quantity 1, at its display price), plus the program's
 * non-medical service fee as its own line when it has one. Empty: nothing can be sold.
 */
export function checkoutItems(program: Pick<ProgramRow, 'products' | 'nonMedicalServiceFeeCents'>): CreateOrderItem[] {
  const items: CreateOrderItem[] = [];
  for (const product of program.products) {
    const price = priceProduct(pricingInput(product));
    if (!price.isSellable) continue;
    items.push({
      globalProductId: product.globalProductId,
      productName: product.name,
      quantity: 1,
      unitPriceCents: price.displayPriceCents!,
      pharmacyCostCents: product.pharmacyBasePriceCents,
      facilitationFeeCents: price.facilitationFeeCents,
    });
  }
  if (items.length > 0 && program.nonMedicalServiceFeeCents > 0) {
    items.push({
      productName: 'Non-medical service fee',
      quantity: 1,
      unitPriceCents: program.nonMedicalServiceFeeCents,
      pharmacyCostCents: 0,
    });
  }
  return items;
}

/** The clinic's patient with this email, created when there is none (the unique index settles races). */
async function findOrCreatePatient(
  tx: Queryable,
  clinicId: string,
  sessionId: string,
  body: CompleteSessionBody,
  now: Date,
): Promise<string> {
  const email = body.email ?? `checkout-${sessionId}@patients.example.test`;
  await tx
    .insert(patients)
    .values({
      clinicId,
      email,
      firstName: body.firstName ?? 'Checkout',
      lastName: body.lastName ?? 'Patient',
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: [patients.clinicId, patients.email] });
  const [patient] = await tx
    .select({ id: patients.id })
    .from(patients)
    .where(and(eq(patients.clinicId, clinicId), eq(patients.email, email)));
  return patient!.id;
}

/**
 * Locks the session, checks it is open (409 once completed or expired), then in the same transaction:
 * the patient, the order (createOrder: items, payment, order.created), payment.succeeded
 * (applyPlatformEvent: payment, ledger entries, payment.succeeded), the session completed with its
 * order, and the session.completed event.
 */
export function completeSession(ctx: HandlerContext, sessionId: string, body: CompleteSessionBody): Promise<{ orderId: string }> {
  return completePaidSession(ctx.db, ctx.clinicId, sessionId, body, ctx.now());
}

/**
 * completeSession with explicit values: the platform's entry point when a patient's payment for a
 * checkout succeeded, for callers outside a request that hold a database and no services (the
 * rehearsal script).
 */
export async function completePaidSession(
  db: Database,
  clinicId: string,
  sessionId: string,
  body: CompleteSessionBody,
  now: Date,
): Promise<{ orderId: string }> {
  if (!isUuid(sessionId)) throw notFound('Checkout session');
  return db.transaction(async (tx) => {
    const [session] = await tx
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.clinicId, clinicId), eq(checkoutSessions.id, sessionId)))
      .for('update');
    if (!session) throw notFound('Checkout session');
    const status = effectiveStatus(session.status, session.expiresAt, now);
    if (status !== 'created') throw conflict('CONFLICT', `Checkout session is ${status}; only an open (created) session can be completed`);

    const program = await readProgram(tx, clinicId, session.programId);
    if (program?.state !== 'live' || !program.isActive) throw conflict('CONFLICT', "The session's program is no longer offered");
    const items = checkoutItems(program);
    if (items.length === 0) throw conflict('CONFLICT', "The session's program has no sellable product");

    const patientId = await findOrCreatePatient(tx, clinicId, session.id, body, now);
    const order = await createOrder(tx, clinicId, { patientId, programId: program.id, items, actorType: 'patient' }, { now });
    await applyPlatformEvent(
      tx,
      clinicId,
      order.id,
      { event: 'payment.succeeded', ...(body.processorPaymentId ? { processorPaymentId: body.processorPaymentId } : {}) },
      { now },
    );
    await tx
      .update(checkoutSessions)
      .set({ status: 'completed', orderId: order.id, completedAt: now })
      .where(and(eq(checkoutSessions.clinicId, clinicId), eq(checkoutSessions.id, session.id)));
    await recordOutboxEvent(tx, clinicId, 'session.completed', { sessionId: session.id, orderId: order.id }, now);
    return { orderId: order.id };
  });
}
