// Formats of the business details (docs/onboarding.md, "Business details").

/** The 50 states, DC, and the five inhabited territories (USPS codes). */
export const US_STATE_CODES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
  'DC',
  'AS',
  'GU',
  'MP',
  'PR',
  'VI',
] as const;
const STATES = new Set<string>(US_STATE_CODES);
export const isUsStateCode = (value: string) => STATES.has(value);

/** NN-NNNNNNN (the IRS's format for an Employer Identification Number). */
export const EIN_PATTERN = /^\d{2}-\d{7}$/;
/** NNNNN or NNNNN-NNNN (ZIP+4). */
export const ZIP_CODE_PATTERN = /^\d{5}(-\d{4})?$/;

export { BUSINESS_TYPES } from '../../../../drizzle/schema';

/** A North American Numbering Plan number: area code and exchange both start with 2-9. */
const NANP = /^[2-9]\d{2}[2-9]\d{6}$/;
const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * A phone number as E.164, or null when it is not one: a US number written nationally ((415) 555-0123,
 * 415-555-0123, 415.555.0123, 4155550123, 1 415 555 0123) or any E.164 number (+14155550123,
 * +442071838750). Spaces, dots, dashes and parentheses are ignored; a +1 number must be a valid NANP number.
 */
export function toE164(input: string): string | null {
  const compact = input.replace(/[\s().-]/g, '');
  if (compact.startsWith('+')) {
    if (!E164.test(compact)) return null;
    if (compact.startsWith('+1') && !NANP.test(compact.slice(2))) return null;
    return compact;
  }
  if (!/^\d+$/.test(compact)) return null;
  const national = compact.length === 11 && compact.startsWith('1') ? compact.slice(1) : compact;
  return NANP.test(national) ? `+1${national}` : null;
}

/** How a typed name is compared with the signer's: case, surrounding spaces and repeated inner spaces ignored. */
export const comparableName = (value: string) => value.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
