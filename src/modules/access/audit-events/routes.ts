import { OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { CSV_MEDIA_TYPE } from '../../../platform/http/csv';
import { jsonContent, NO_STORE_HEADERS, ok, successBody } from '../../../platform/http/envelope';
import { pagedBody } from '../../../platform/http/pagination';
import { defineRoute } from '../../../platform/http/route';
import { auditEvent, chainCheck, exportAuditEventsQuery, listAuditEventsQuery } from './schemas';
import { exportAuditEvents, listAuditEvents, MAX_EXPORT_ROWS, verifyAuditEvents } from './service';

const tags = ['Audit trail'];
const read = { auth: 'key', scope: 'read' } as const;

const list = defineRoute(read, {
  method: 'get',
  path: '/api/v1/audit-events',
  operationId: 'listAuditEvents',
  tags,
  summary: "List the clinic's audit events (who did what, when), newest first",
  description:
    "Every write made with a key or a brand-admin token, and every read of patient data, of the calling key's clinic. Patient data and secrets appear by field name only. Kept six years. docs/audit-log.md.",
  request: { query: listAuditEventsQuery },
  responses: { 200: jsonContent(pagedBody(auditEvent), 'Audit events, newest first') },
});

const verify = defineRoute(read, {
  method: 'get',
  path: '/api/v1/audit-events/verify',
  operationId: 'verifyAuditEvents',
  tags,
  summary: "Check the clinic's audit hash chain",
  description:
    "Recomputes every row's hash from the previous row's hash and its own content, from the first row on: intact, how many rows were checked, and the first row that breaks the chain (or null). docs/audit-log.md.",
  responses: { 200: jsonContent(successBody(chainCheck), 'The result of the check') },
});

const exportCsv = defineRoute(read, {
  method: 'get',
  path: '/api/v1/audit-events/export',
  operationId: 'exportAuditEvents',
  tags,
  summary: 'Export the audit events of a time range as CSV, oldest first',
  description: `At most ${MAX_EXPORT_ROWS} events per export (a 400 asks for a narrower range). Cells that a spreadsheet would read as a formula are prefixed with a quote. docs/audit-log.md.`,
  request: { query: exportAuditEventsQuery },
  responses: { 200: { description: 'CSV (RFC 4180, a header row)', content: { [CSV_MEDIA_TYPE]: { schema: z.string() } } } },
});

export const auditEventRoutes = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { data, pagination } = await listAuditEvents(handlerContext(c), c.req.valid('query'));
    return c.json({ ...ok(data), pagination }, 200);
  })
  .openapi(verify, async (c) => c.json(ok(await verifyAuditEvents(handlerContext(c))), 200))
  .openapi(exportCsv, async (c) => {
    const csv = await exportAuditEvents(handlerContext(c), c.req.valid('query'));
    return c.body(csv, 200, {
      ...NO_STORE_HEADERS,
      'Content-Type': `${CSV_MEDIA_TYPE}; charset=utf-8`,
      'Content-Disposition': 'attachment; filename="audit-events.csv"',
    });
  });
