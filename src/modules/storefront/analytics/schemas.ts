import { z } from '@hono/zod-openapi';
import { FORM_SESSION_STATUSES, PROGRAM_STATES } from '../../../../drizzle/schema';
import { successBody } from '../../../platform/http/envelope';
import { pageQuery, paginationSchema } from '../../../platform/http/pagination';
import { pathId } from '../../../platform/values/ids';
import { checkWindow, GRANULARITIES, seriesQuery, windowFields, windowQuery, windowSchema } from '../../orders';

// Intake-form analytics (form sessions) and product-like analytics (docs/analytics.md). No patient
// data anywhere: sessions are listed by id, status, steps and times only.

const count = (description: string) => z.number().int().openapi({ description });
const percent = (description: string) =>
  z
    .number()
    .nullable()
    .openapi({ description: `${description} Percent with one decimal; null without sessions.`, example: 62.5 });

/** A window, or null when none was asked (all time). */
const optionalWindow = z
  .object(windowSchema.shape)
  .nullable()
  .openapi({ description: 'The window of sessions counted (by startedAt, inclusive); null: all sessions.' });

const sessionFigures = {
  started: count('Sessions started (every session, whatever happened next).'),
  completed: count('Of those, completed.'),
  abandoned: count('Of those, abandoned (marked by the sweep after 24 hours without completion).'),
  inProgress: count('Of those, still started (neither completed nor abandoned yet).'),
  completionRate: percent('completed / started x 100.'),
  abandonmentRate: percent('abandoned / started x 100.'),
  averageStepsReached: z
    .number()
    .nullable()
    .openapi({ description: 'Mean of the last step each session reached (two decimals); null without sessions.', example: 3.25 }),
  medianStepsReached: z
    .number()
    .nullable()
    .openapi({ description: 'Median of the last step reached (interpolated); null without sessions.', example: 3 }),
};

export const formsAnalytics = z
  .object({
    window: optionalWindow,
    totals: z.object(sessionFigures).openapi({ description: 'All the forms together.' }),
    forms: z
      .array(
        z.object({
          formId: z.string().uuid().openapi({ description: "The questionnaire's id." }),
          name: z.string(),
          isActive: z.boolean(),
          ...sessionFigures,
          averageTotalSteps: z
            .number()
            .nullable()
            .openapi({ description: 'Mean number of steps of the sessions (a form may have changed); null without sessions.' }),
          lastStartedAt: z.string().datetime().nullable(),
        }),
      )
      .openapi({ description: 'Every questionnaire of the clinic (those without sessions too), most sessions first, then by name.' }),
  })
  .openapi('FormsAnalytics');
export type FormsAnalytics = z.infer<typeof formsAnalytics>;

export const formsAnalyticsQuery = windowQuery;

export const formSession = z
  .object({
    id: z.string().uuid(),
    formId: z.string().uuid(),
    programId: z.string().uuid().nullable(),
    status: z.enum(FORM_SESSION_STATUSES),
    lastStepReached: z.number().int(),
    totalSteps: z.number().int(),
    startedAt: z.string().datetime(),
    completedAt: z.string().datetime().nullable(),
    abandonedAt: z.string().datetime().nullable(),
  })
  .openapi('FormSession', { description: 'A pass through an intake form, without patient data.' });
export type FormSession = z.infer<typeof formSession>;

const funnel = z
  .array(
    z.object({
      step: z.number().int().openapi({ description: '1-based.' }),
      reached: count('Sessions that reached this step or a later one.'),
      reachedPercent: percent('reached / started x 100.'),
      abandonedHere: count('Abandoned sessions whose last step reached was this one.'),
      inProgressHere: count('Sessions still started whose last step reached is this one.'),
    }),
  )
  .openapi({ description: 'One row per step, from 1 to the largest step count of the sessions.' });

export const sessionsQuery = z
  .object({
    ...pageQuery.shape,
    status: z
      .enum(FORM_SESSION_STATUSES)
      .optional()
      .openapi({ description: 'Only list sessions with this status (the figures and the funnel count every status).' }),
    ...windowFields,
  })
  .superRefine(checkWindow);
export type SessionsQuery = z.infer<typeof sessionsQuery>;

const funnelBody = {
  window: optionalWindow,
  summary: z.object(sessionFigures),
  funnel,
  sessions: z.array(formSession).openapi({ description: 'The page of sessions, newest first (startedAt, then id).' }),
};

export const formFunnel = z
  .object({
    form: z.object({ id: z.string().uuid(), name: z.string(), isActive: z.boolean() }),
    ...funnelBody,
  })
  .openapi('FormFunnel');
export type FormFunnel = z.infer<typeof formFunnel>;

export const programFunnel = z
  .object({
    program: z.object({ id: z.string().uuid(), name: z.string(), state: z.enum(PROGRAM_STATES) }),
    ...funnelBody,
    byForm: z
      .array(
        z.object({
          formId: z.string().uuid(),
          name: z.string(),
          started: count('Sessions of this form for the program.'),
          completed: count('Of those, completed.'),
          abandoned: count('Of those, abandoned.'),
          completionRate: percent('completed / started x 100.'),
        }),
      )
      .openapi({ description: "The forms the program's sessions went through, most sessions first." }),
  })
  .openapi('ProgramFunnel');
export type ProgramFunnel = z.infer<typeof programFunnel>;

/** A body with a page of sessions: the figures in data, the paging beside it (as every paged list). */
export const pagedFunnelBody = <T extends z.ZodType>(data: T) => successBody(data).extend({ pagination: paginationSchema });

export const formIdParam = z.object({ formId: pathId('formId').openapi({ description: 'A questionnaire (intake form) of the clinic.' }) });
export const programIdParam = z.object({
  questionnaireId: pathId('questionnaireId').openapi({
    description:
      "The id of one of the clinic's programs (the specification names this parameter questionnaireId; it identifies the program whose sessions are aggregated, across its forms).",
  }),
});
export const tenantProductIdParam = z.object({ tenantProductId: pathId('tenantProductId') });

export const likesAnalyticsQuery = seriesQuery;

export const likesAnalytics = z
  .object({
    tenantProductId: z.string().uuid(),
    globalProductId: z.string().uuid(),
    productName: z.string(),
    totalLikes: count('Every like of the product (all time).'),
    uniquePatients: count('Distinct patients who like it (all time; a patient likes a product at most once).'),
    firstLikedAt: z.string().datetime().nullable(),
    lastLikedAt: z.string().datetime().nullable(),
    window: windowSchema,
    granularity: z.enum(GRANULARITIES),
    likesInWindow: count('Likes created in the window.'),
    uniquePatientsInWindow: count('Distinct patients who liked it in the window.'),
    series: z
      .array(
        z.object({
          bucket: z.string().openapi({ description: 'First day of the bucket (YYYY-MM-DD, UTC).', example: '2030-01-06' }),
          likes: count('Likes created in the bucket (inside the window).'),
        }),
      )
      .openapi({ description: 'Every bucket of the window, oldest first, zeros included.' }),
  })
  .openapi('ProductLikesAnalytics');
export type LikesAnalytics = z.infer<typeof likesAnalytics>;

export const LIKE_COUNTS_MAX_IDS = 200;
export const likeCountsBody = z
  .object({
    tenantProductIds: z
      .array(z.string().uuid().openapi({ format: 'uuid' }))
      .min(1)
      .max(LIKE_COUNTS_MAX_IDS)
      .openapi({ description: `1-${LIKE_COUNTS_MAX_IDS} tenant product ids. Duplicates are answered once.` }),
  })
  .strict()
  .openapi('LikeCountsRequest');
export type LikeCountsBody = z.infer<typeof likeCountsBody>;

export const likeCounts = z
  .object({
    counts: z
      .array(
        z.object({
          tenantProductId: z.string().uuid().openapi({ description: 'As sent (lower-cased).' }),
          likes: count(
            "Likes of the clinic's tenant product; 0 for an id that is not one of the clinic's tenant products (unknown or another clinic's).",
          ),
        }),
      )
      .openapi({ description: 'One row per distinct id, in the order sent.' }),
    total: count('The sum of the counts.'),
  })
  .openapi('LikeCounts');
export type LikeCounts = z.infer<typeof likeCounts>;
