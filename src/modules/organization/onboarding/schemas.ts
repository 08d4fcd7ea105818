import { z } from '@hono/zod-openapi';
import { CLINIC_MODES, ONBOARDING_STEPS } from '../../../../drizzle/schema';
import { safeString } from '../../../platform/values/strings';
import { BUSINESS_TYPES, EIN_PATTERN, isUsStateCode, toE164, US_STATE_CODES, ZIP_CODE_PATTERN } from './validation';

/** The steps that are done one after the other (completed is where they end). */
export const ONBOARDING_WORK_STEPS = ['business_details', 'identity_verification', 'agreement', 'plan_payment'] as const;
export type OnboardingWorkStep = (typeof ONBOARDING_WORK_STEPS)[number];
export const STEP_STATES = ['completed', 'current', 'pending'] as const;

const dateTime = () => z.string().datetime();

export const businessDetails = z
  .object({
    companyName: z.string().nullable(),
    ein: z.string().nullable().openapi({ example: '12-3456789' }),
    businessType: z.enum(BUSINESS_TYPES).nullable(),
    stateOfRegistration: z.string().nullable().openapi({ example: 'DE' }),
    address: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable().openapi({ example: 'CA' }),
    zipCode: z.string().nullable().openapi({ example: '94107' }),
    phoneNumber: z.string().nullable().openapi({ description: 'E.164.', example: '+14155550123' }),
  })
  .openapi('OnboardingBusinessDetails');

export const onboardingStatus = z
  .object({
    currentStep: z
      .enum(ONBOARDING_STEPS)
      .openapi({ description: 'business_details -> identity_verification -> agreement -> plan_payment -> completed.' }),
    isComplete: z.boolean(),
    completedAt: dateTime().nullable(),
    clinicMode: z.enum(CLINIC_MODES).openapi({ description: 'A sandbox clinic becomes live when onboarding completes.' }),
    steps: z
      .array(
        z.object({
          step: z.enum(ONBOARDING_WORK_STEPS),
          state: z.enum(STEP_STATES),
          completedAt: dateTime().nullable(),
        }),
      )
      .openapi({ description: 'Every step in order, with its state.' }),
    signer: z.object({
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      email: z.string().nullable(),
      nameChangeUsed: z.boolean().openapi({ description: 'The one name change was made.' }),
      nameChangeAvailable: z.boolean().openapi({
        description: 'POST /api/v1/onboarding/request-name-change would be accepted now (not used, identity not yet verified).',
      }),
    }),
    missing: z.array(z.object({ step: z.enum(ONBOARDING_WORK_STEPS), requirement: z.string() })).openapi({
      description: 'What is still needed to complete onboarding, in order; empty once complete.',
    }),
    businessDetails: businessDetails.nullable().openapi({ description: 'As saved by save-business-details; null before.' }),
  })
  .openapi('OnboardingStatus');
export type OnboardingStatusView = z.infer<typeof onboardingStatus>;

/** Letters (any script) first, then letters, spaces, apostrophes, periods and hyphens. */
const PERSON_NAME = /^[\p{L}\p{M}][\p{L}\p{M}' .-]*$/u;

const personName = (what: string) =>
  safeString()
    .trim()
    .min(1)
    .max(100)
    .refine((value) => PERSON_NAME.test(value), { message: 'must be a name (letters, spaces, apostrophes, periods and hyphens)' })
    .openapi({ description: what });

export const nameChangeBody = z
  .object({
    firstName: personName("The signer's first name, as on their identity document.").openapi({ example: 'Jordan' }),
    lastName: personName("The signer's last name, as on their identity document.").openapi({ example: 'Rivera' }),
  })
  .strict()
  .openapi('OnboardingNameChangeRequest');

export const signatureBody = z
  .object({
    typedName: safeString().max(200).openapi({
      description:
        'The signer\'s full name ("first last"), typed as a signature; compared ignoring case, surrounding spaces and repeated inner spaces.',
      example: 'Jordan Rivera',
    }),
  })
  .strict()
  .openapi('OnboardingSignatureDeclaration');

const usState = (description: string) =>
  safeString()
    .trim()
    .max(2)
    .toUpperCase()
    .refine(isUsStateCode, { message: `must be a two-letter US state code (${US_STATE_CODES.join(', ')})` })
    .openapi({ description, example: 'CA' });

export const businessDetailsBody = z
  .object({
    ein: safeString()
      .trim()
      .max(10)
      .regex(EIN_PATTERN, 'must be an EIN written NN-NNNNNNN')
      .openapi({ description: 'Employer Identification Number, NN-NNNNNNN.', example: '12-3456789' }),
    stateOfRegistration: usState('Where the business is registered (two-letter code, any case).').openapi({ example: 'DE' }),
    address: safeString().trim().min(1).max(200).openapi({ example: '500 Market Street, Suite 300' }),
    city: safeString().trim().min(1).max(100).openapi({ example: 'San Francisco' }),
    state: usState('Two-letter US state code of the address (any case).'),
    zipCode: safeString().trim().max(10).regex(ZIP_CODE_PATTERN, 'must be a ZIP code (NNNNN or NNNNN-NNNN)').openapi({ example: '94107' }),
    phoneNumber: safeString()
      .trim()
      .max(30)
      .transform((value, ctx) => {
        const e164 = toE164(value);
        if (!e164) {
          ctx.addIssue({ code: 'custom', message: 'must be a US phone number ((415) 555-0123) or an E.164 number (+14155550123)' });
          return z.NEVER;
        }
        return e164;
      })
      .openapi({ description: 'A US number written nationally or any E.164 number; stored as E.164.', example: '(415) 555-0123' }),
    businessType: z.enum(BUSINESS_TYPES).openapi({ description: 'The legal form of the business.' }),
    companyName: safeString()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'The legal name of the business.', example: 'Bright Health Partners LLC' }),
  })
  .strict()
  .openapi('OnboardingBusinessDetailsRequest');
export type BusinessDetailsBody = z.infer<typeof businessDetailsBody>;
