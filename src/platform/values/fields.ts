// Small zod building blocks the areas' schemas share.
import { z } from '@hono/zod-openapi';

/**
 * A timestamp in an answer: ISO 8601 UTC (what isoOrNull and Date.toISOString produce). Inputs use
 * dateTime() of ./dates, which also checks the zone offset and the range.
 */
export const timestamp = () => z.string().datetime();

/** For .refine on a partial update body: it must name at least one field. */
export const atLeastOneField = (body: object) => Object.keys(body).length > 0;
