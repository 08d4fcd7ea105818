// Affiliates' tax documents.
import { z } from '@hono/zod-openapi';
import { TAX_DOCUMENT_STATUSES } from '../../../../../drizzle/schema';
import { pageQuery } from '../../../../platform/http/pagination';
import { pathId } from '../../../../platform/values/ids';
import { text } from '../../../../platform/values/strings';
import { affiliateRef } from '../schemas';

export const docIdParam = z.object({ docId: pathId('docId') });
export const listTaxDocumentsQuery = pageQuery.extend({
  status: z.enum(TAX_DOCUMENT_STATUSES).optional().openapi({ description: 'Only documents in this status.' }),
});

export const rejectTaxDocumentBody = z
  .object({
    reason: text()
      .trim()
      .min(1)
      .max(1000)
      .openapi({ description: 'Why the document was rejected (required).', example: 'The TIN does not match the name.' }),
  })
  .strict()
  .openapi('RejectAffiliateTaxDocumentRequest');

export const taxDocument = z
  .object({
    id: z.string().uuid(),
    affiliate: affiliateRef,
    documentType: z.string().openapi({ example: 'w9' }),
    taxYear: z.number().int(),
    status: z.enum(TAX_DOCUMENT_STATUSES),
    tinLastFour: z.string().nullable().openapi({ description: 'Last four digits of the TIN only.' }),
    submittedAt: z.string().datetime(),
    reviewedAt: z.string().datetime().nullable(),
    rejectionReason: z.string().nullable(),
  })
  .openapi('AffiliateTaxDocument');
export type TaxDocumentData = z.infer<typeof taxDocument>;
