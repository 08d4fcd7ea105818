import { z } from '@hono/zod-openapi';
import { pathId } from '../../../platform/values/ids';

export const ALERT_DIRECTIONS = ['increase', 'decrease'] as const;
export const ALERT_STATUSES = ['open', 'acknowledged'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export const ALERT_STATUS_FILTERS = ['open', 'acknowledged', 'all'] as const;
export const MAX_ALERTS = 200;
export const DEFAULT_ALERTS = 100;

export const listAlertsQuery = z.object({
  status: z
    .enum(ALERT_STATUS_FILTERS)
    .default('open')
    .openapi({ description: 'Which alerts to list: open (default), acknowledged or all.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ALERTS)
    .default(DEFAULT_ALERTS)
    .openapi({
      description: `At most this many alerts, newest first (1-${MAX_ALERTS}, default ${DEFAULT_ALERTS}); count is always the full number.`,
      example: DEFAULT_ALERTS,
    }),
});
export type ListAlertsQuery = z.infer<typeof listAlertsQuery>;

const dollars = (description: string) =>
  z
    .number()
    .nullable()
    .openapi({ description: `${description} US dollars; null when unknown.` });

export const priceChangeAlert = z
  .object({
    id: z.string().uuid(),
    productId: z.string().uuid().nullable().openapi({ description: "The clinic's own product, when the alert is about one." }),
    programId: z.string().uuid().nullable(),
    globalProductId: z.string().uuid().nullable(),
    direction: z.enum(ALERT_DIRECTIONS),
    previousPharmacyPrice: dollars('The pharmacy price before the change,'),
    newPharmacyPrice: dollars('The pharmacy price after the change,'),
    currentProgramFee: dollars("The program's fee for the product now,"),
    suggestedProgramFee: dollars('A fee that keeps the per-unit margin where it was,'),
    perUnitMarginDelta: dollars('What the change does to the margin of one unit (negative: the margin shrinks),'),
    status: z.enum(ALERT_STATUSES),
    acknowledgedAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
  })
  .openapi('PharmacyPriceChangeAlert');
export type PriceChangeAlert = z.infer<typeof priceChangeAlert>;

export const alertList = z.object({
  count: z.number().int().openapi({ description: 'Alerts matching the status filter (all of them, also beyond limit).' }),
  alerts: z.array(priceChangeAlert),
});

export const acknowledgedAlert = z.object({ id: z.string().uuid(), status: z.enum(ALERT_STATUSES) }).openapi('AcknowledgedAlert');

export const alertIdParam = z.object({ alertId: pathId('alertId') });
