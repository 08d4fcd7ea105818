// The checkout area's pure rules: effective status, embed URL, token shape, the items of a checkout.
import { describe, expect, it } from 'vitest';
import type { ProductRow } from '../../src/modules/catalog/programs/queries';
import { checkoutItems } from '../../src/modules/webhooks-checkout/checkout/complete-session';
import { createSessionBody } from '../../src/modules/webhooks-checkout/checkout/schemas';
import {
  DEFAULT_CHECKOUT_EMBED_BASE_URL,
  effectiveStatus,
  embedUrlFor,
  generateSessionToken,
} from '../../src/modules/webhooks-checkout/checkout/service';

describe('effectiveStatus', () => {
  const expiresAt = new Date('2030-01-01T00:30:00.000Z');
  it('created stays created before expiresAt', () =>
    expect(effectiveStatus('created', expiresAt, new Date(expiresAt.getTime() - 1))).toBe('created'));
  it('created reads as expired at and after expiresAt', () => {
    expect(effectiveStatus('created', expiresAt, expiresAt)).toBe('expired');
    expect(effectiveStatus('created', expiresAt, new Date(expiresAt.getTime() + 1))).toBe('expired');
  });
  it('completed stays completed after expiresAt', () =>
    expect(effectiveStatus('completed', expiresAt, new Date('2031-01-01'))).toBe('completed'));
});

describe('embedUrlFor and tokens', () => {
  it('puts the id in the path and the token in the fragment, under the configured base (trailing slashes dropped)', () => {
    expect(embedUrlFor('https://pay.example/c//', 'id1', 'cs_tok_x')).toBe('https://pay.example/c/id1#token=cs_tok_x');
    expect(embedUrlFor(undefined, 'id1', 'cs_tok_x')).toBe(`${DEFAULT_CHECKOUT_EMBED_BASE_URL}/id1#token=cs_tok_x`);
  });
  it('tokens are cs_tok_ + 43 base64url characters, never repeated', () => {
    const a = generateSessionToken();
    expect(a).toMatch(/^cs_tok_[A-Za-z0-9_-]{43}$/);
    expect(generateSessionToken()).not.toBe(a);
  });
});

describe('createSessionBody', () => {
  const id = '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10';
  it('accepts exactly 20 keys and refuses 21', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, true]));
    expect(createSessionBody.safeParse({ programId: id, metadata: keys(20) }).success).toBe(true);
    expect(createSessionBody.safeParse({ programId: id, metadata: keys(21) }).success).toBe(false);
  });
  it('refuses more than 4096 bytes of metadata and keys over 40 characters', () => {
    const big = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'é'.repeat(250)]));
    expect(createSessionBody.safeParse({ programId: id, metadata: big }).success).toBe(false);
    expect(createSessionBody.safeParse({ programId: id, metadata: { ['k'.repeat(41)]: 1 } }).success).toBe(false);
  });
  it('successUrl: https only, or null', () => {
    expect(createSessionBody.safeParse({ programId: id, successUrl: null }).success).toBe(true);
    expect(createSessionBody.safeParse({ programId: id, successUrl: 'https://a.example/x?y=1' }).success).toBe(true);
    for (const url of ['http://a.example', 'javascript:alert(1)', 'https://', '//a.example']) {
      expect(createSessionBody.safeParse({ programId: id, successUrl: url }).success, url).toBe(false);
    }
  });
});

describe('checkoutItems', () => {
  const product = (values: Partial<ProductRow>): ProductRow => ({
    id: 'pp',
    globalProductId: 'gp',
    displayOrder: 0,
    isPatientVisible: true,
    isActive: true,
    linkSource: 'program',
    programBaseFeeCents: 5_000,
    clinicFeeOverrideCents: null,
    placeholderFeeCents: null,
    facilitationFeeCents: 500,
    hasCoverage: true,
    name: 'Semaglutide',
    slug: 's',
    categories: [],
    description: null,
    imageUrl: null,
    pharmacyBasePriceCents: 10_000,
    packDurationMonths: 1,
    vialsPerPack: 1,
    supplyDays: 30,
    requiresCooler: false,
    allowPrepay: false,
    isDiscontinued: false,
    ...values,
  });
  it('one line per sellable product at its display price, plus the service fee line', () => {
    const items = checkoutItems({
      nonMedicalServiceFeeCents: 2_500,
      products: [product({}), product({ isActive: false }), product({ programBaseFeeCents: null })],
    });
    expect(items).toEqual([
      {
        globalProductId: 'gp',
        productName: 'Semaglutide',
        quantity: 1,
        unitPriceCents: 15_500,
        pharmacyCostCents: 10_000,
        facilitationFeeCents: 500,
      },
      { productName: 'Non-medical service fee', quantity: 1, unitPriceCents: 2_500, pharmacyCostCents: 0 },
    ]);
  });
  it('nothing when no product is sellable (the service fee alone is not a checkout)', () => {
    expect(checkoutItems({ nonMedicalServiceFeeCents: 2_500, products: [product({ hasCoverage: false })] })).toEqual([]);
  });
});
