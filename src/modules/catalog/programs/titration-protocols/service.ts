import { type SQL, sql } from 'drizzle-orm';
import type { HandlerContext } from '../../../../platform/context';
import { isoTimestamp as iso, rowsOf } from '../../../../platform/db/sql';
import { badRequest, notFound } from '../../../../platform/values/errors';
import { isUuid } from '../../../../platform/values/ids';
import { centsToAmount } from '../../../../platform/values/money';
import { lockProgram } from '../service';
import type { AttachTitrationBody, TitrationAttachment, UpdateTitrationBody } from './schemas';

// A program's titration-protocol attachments (flat fee, billing months, position).

const ATTACHMENT = 'Titration protocol attachment';

interface AttachmentRow {
  id: string;
  programId: string;
  titrationProtocolId: string;
  protocolName: string;
  maxLevel: number;
  flatFeeCents: number;
  allowedBillingMonths: number[];
  position: number;
  createdAt: string;
}

/** Columns of an attachment `a` joined to its protocol `tp`. */
const attachmentColumns = sql`
  a.id, a.program_id as "programId", a.titration_protocol_id as "titrationProtocolId", tp.name as "protocolName",
  tp.max_level as "maxLevel", a.flat_fee_cents as "flatFeeCents", a.allowed_billing_months as "allowedBillingMonths",
  a.position, ${iso(sql`a.created_at`)} as "createdAt"`;

function toAttachment(row: AttachmentRow): TitrationAttachment {
  return {
    id: row.id,
    programId: row.programId,
    titrationProtocolId: row.titrationProtocolId,
    titrationProtocol: { id: row.titrationProtocolId, name: row.protocolName, maxLevel: row.maxLevel },
    flatFee: centsToAmount(row.flatFeeCents),
    allowedBillingMonths: row.allowedBillingMonths,
    position: row.position,
    createdAt: row.createdAt,
  };
}

const sortedMonths = (months: number[]) => `{${[...months].sort((a, b) => a - b).join(',')}}`;

/** In position order; one statement. */
export async function listAttachments({ db, clinicId }: HandlerContext, id: string): Promise<TitrationAttachment[]> {
  if (!isUuid(id)) throw notFound('Program');
  const [row] = await rowsOf<{ attachments: AttachmentRow[] }>(
    db,
    sql`
    select (
      select coalesce(json_agg(json_build_object(
        'id', a.id, 'programId', a.program_id, 'titrationProtocolId', a.titration_protocol_id, 'protocolName', tp.name,
        'maxLevel', tp.max_level, 'flatFeeCents', a.flat_fee_cents, 'allowedBillingMonths', a.allowed_billing_months,
        'position', a.position, 'createdAt', ${iso(sql`a.created_at`)}
      ) order by a.position, a.created_at, a.id), '[]'::json)
      from program_titration_protocols a join titration_protocols tp on tp.id = a.titration_protocol_id
      where a.program_id = p.id and a.clinic_id = p.clinic_id
    ) as attachments
    from programs p where p.id = ${id} and p.clinic_id = ${clinicId}`,
  );
  if (!row) throw notFound('Program');
  return row.attachments.map(toAttachment);
}

export async function attachProtocol(ctx: HandlerContext, id: string, body: AttachTitrationBody): Promise<TitrationAttachment> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    await lockProgram(tx, clinicId, id);
    const [protocol] = await rowsOf<{ id: string }>(tx, sql`select id from titration_protocols where id = ${body.titrationProtocolId}`);
    if (!protocol) throw badRequest('body.titrationProtocolId: unknown titration protocol');
    const position: SQL =
      body.position !== undefined
        ? sql`${body.position}::integer`
        : sql`(select coalesce(max(position) + 1, 0) from program_titration_protocols where program_id = ${id} and clinic_id = ${clinicId})`;
    const [row] = await rowsOf<AttachmentRow>(
      tx,
      sql`
      with a as (
        insert into program_titration_protocols (clinic_id, program_id, titration_protocol_id, flat_fee_cents, allowed_billing_months, position, created_at)
        values (${clinicId}, ${id}, ${protocol.id}, ${body.flatFee}, ${sortedMonths(body.allowedBillingMonths)}::integer[], ${position}, ${now})
        returning *
      )
      select ${attachmentColumns} from a join titration_protocols tp on tp.id = a.titration_protocol_id`,
    );
    return toAttachment(row!);
  });
}

/** The fields sent; an attachment of another program (or clinic), unknown or malformed ids: 404. */
export async function updateAttachment(
  { db, clinicId }: HandlerContext,
  id: string,
  attachmentId: string,
  body: UpdateTitrationBody,
): Promise<TitrationAttachment> {
  if (!isUuid(id) || !isUuid(attachmentId)) throw notFound(ATTACHMENT);
  const set: SQL[] = [sql`id = id`];
  if (body.flatFee !== undefined) set.push(sql`flat_fee_cents = ${body.flatFee}`);
  if (body.allowedBillingMonths !== undefined)
    set.push(sql`allowed_billing_months = ${sortedMonths(body.allowedBillingMonths)}::integer[]`);
  if (body.position !== undefined) set.push(sql`position = ${body.position}`);
  const [row] = await rowsOf<AttachmentRow>(
    db,
    sql`
    with a as (
      update program_titration_protocols set ${sql.join(set, sql`, `)}
      where id = ${attachmentId} and program_id = ${id} and clinic_id = ${clinicId}
      returning *
    )
    select ${attachmentColumns} from a join titration_protocols tp on tp.id = a.titration_protocol_id`,
  );
  if (!row) throw notFound(ATTACHMENT);
  return toAttachment(row);
}

/** Detaches and answers the attachment as it was. */
export async function detachProtocol({ db, clinicId }: HandlerContext, id: string, attachmentId: string): Promise<TitrationAttachment> {
  if (!isUuid(id) || !isUuid(attachmentId)) throw notFound(ATTACHMENT);
  const [row] = await rowsOf<AttachmentRow>(
    db,
    sql`
    with a as (
      delete from program_titration_protocols
      where id = ${attachmentId} and program_id = ${id} and clinic_id = ${clinicId}
      returning *
    )
    select ${attachmentColumns} from a join titration_protocols tp on tp.id = a.titration_protocol_id`,
  );
  if (!row) throw notFound(ATTACHMENT);
  return toAttachment(row);
}
