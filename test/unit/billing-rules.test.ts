// The pure rules of billing and onboarding: proration arithmetic, month arithmetic, Stripe mappings,
// phone numbers and typed names.
import { describe, expect, it } from 'vitest';
import { divideRoundHalfUp, prorate } from '../../src/modules/organization/billing/proration';
import { addMonthUtc } from '../../src/modules/organization/billing/sweeps';
import { comparableName, toE164 } from '../../src/modules/organization/onboarding/validation';
import { accountStateFromStripe, subscriptionStatusFromStripe } from '../../src/platform/providers/billing';

const utc = (s: string) => new Date(s);

describe('proration', () => {
  it('rounds half up on integers only', () => {
    expect([
      divideRoundHalfUp(1n, 2n),
      divideRoundHalfUp(3n, 2n),
      divideRoundHalfUp(1n, 3n),
      divideRoundHalfUp(2n, 3n),
      divideRoundHalfUp(0n, 7n),
    ]).toEqual([1n, 2n, 0n, 1n, 0n]);
    expect(() => divideRoundHalfUp(1n, 0n)).toThrow(RangeError);
  });

  it('January 2030 (31 days), changed at noon on the 20th: 11.5 days left', () => {
    const p = prorate({
      periodStart: utc('2030-01-01T00:00:00Z'),
      periodEnd: utc('2030-02-01T00:00:00Z'),
      at: utc('2030-01-20T12:00:00Z'),
      currentPriceCents: 19_900,
      newPriceCents: 49_900,
    });
    // 19 900 x 993 600 / 2 678 400 = 7 382.26 -> 7 382; 49 900 x ... = 18 511.29 -> 18 511
    expect(p).toEqual({
      periodSeconds: 2_678_400,
      remainingSeconds: 993_600,
      unusedTimeCreditCents: 7_382,
      remainingTimeChargeCents: 18_511,
      netCents: 11_129,
      amountDueCents: 11_129,
      creditToBalanceCents: 0,
    });
  });

  it('a half cent rounds up on each line; a downgrade leaves a credit', () => {
    // 1 cent x 1 / 2 = 0.5 -> 1; 3 cents x 1 / 2 = 1.5 -> 2
    const half = prorate({
      periodStart: utc('2030-01-01T00:00:00Z'),
      periodEnd: utc('2030-01-01T00:00:02Z'),
      at: utc('2030-01-01T00:00:01Z'),
      currentPriceCents: 3,
      newPriceCents: 1,
    });
    expect([half.unusedTimeCreditCents, half.remainingTimeChargeCents, half.amountDueCents, half.creditToBalanceCents]).toEqual([
      2, 1, 0, 1,
    ]);
  });

  it('clamps the instant to the period: before it nothing is used, after it nothing is left', () => {
    const period = {
      periodStart: utc('2030-01-01T00:00:00Z'),
      periodEnd: utc('2030-01-31T00:00:00Z'),
      currentPriceCents: 1_000,
      newPriceCents: 3_000,
    };
    expect(prorate({ ...period, at: utc('2029-12-01T00:00:00Z') })).toMatchObject({ remainingSeconds: 2_592_000, amountDueCents: 2_000 });
    expect(prorate({ ...period, at: utc('2030-02-15T00:00:00Z') })).toMatchObject({ remainingSeconds: 0, amountDueCents: 0 });
    expect(() => prorate({ ...period, at: utc('2030-01-02T00:00:00Z'), newPriceCents: 1.5 })).toThrow(RangeError);
  });
});

describe('addMonthUtc', () => {
  it('keeps the day and time, clamped to the next month', () => {
    expect(addMonthUtc(utc('2030-01-15T10:30:00Z')).toISOString()).toBe('2030-02-15T10:30:00.000Z');
    expect(addMonthUtc(utc('2030-01-31T00:00:00Z')).toISOString()).toBe('2030-02-28T00:00:00.000Z');
    expect(addMonthUtc(utc('2032-01-31T00:00:00Z')).toISOString()).toBe('2032-02-29T00:00:00.000Z');
    expect(addMonthUtc(utc('2030-12-31T23:59:59Z')).toISOString()).toBe('2031-01-31T23:59:59.000Z');
  });
});

describe('Stripe mappings', () => {
  it('maps subscription statuses onto active, past_due, cancelled, expired', () => {
    expect(
      ['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused', 'canceled', 'incomplete_expired'].map(
        subscriptionStatusFromStripe,
      ),
    ).toEqual(['active', 'active', 'past_due', 'past_due', 'past_due', 'past_due', 'cancelled', 'expired']);
  });

  it('maps an account: details not submitted -> pending; submitted and both enabled -> active; else restricted', () => {
    const account = (charges: boolean, payouts: boolean, details: boolean) =>
      accountStateFromStripe({
        charges_enabled: charges,
        payouts_enabled: payouts,
        details_submitted: details,
        requirements: { currently_due: ['a', 'b'], past_due: ['b'] } as never,
      });
    expect(account(false, false, false)).toEqual({
      status: 'pending',
      chargesEnabled: false,
      payoutsEnabled: false,
      detailsSubmitted: false,
      requirementsDue: ['b', 'a'],
    });
    expect(account(true, true, true).status).toBe('active');
    expect(account(true, false, true).status).toBe('restricted');
  });
});

describe('onboarding formats', () => {
  it('reads US and E.164 phone numbers', () => {
    expect(['(415) 555-0123', '415.555.0123', '14155550123', '+1 415 555 0123', '+442071838750'].map(toE164)).toEqual([
      '+14155550123',
      '+14155550123',
      '+14155550123',
      '+14155550123',
      '+442071838750',
    ]);
    expect(['555-0123', '(115) 555-0123', '415-155-0123', '+1 115 555 0123', '+0123456789', 'call me', '+12345'].map(toE164)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('compares typed names ignoring case and extra spaces', () => {
    expect(comparableName('  jORDAN   rivera ')).toBe(comparableName('Jordan Rivera'));
    expect(comparableName('Jordan Rivera')).not.toBe(comparableName('Jordan Riviera'));
  });
});
