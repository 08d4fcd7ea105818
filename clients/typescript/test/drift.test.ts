// The committed types (src/schema.d.ts) are what openapi-typescript makes of the current OpenAPI
// document: a route or schema change without `npm run client:generate` fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_GENERATE_COMMAND, CLIENT_SCHEMA_PATH, clientSchemaSource } from '../../../scripts/lib/client-schema';

describe('the TypeScript client types', () => {
  it('match the OpenAPI document (regenerate with npm run client:generate)', async () => {
    const generated = await clientSchemaSource();
    const committed = readFileSync(CLIENT_SCHEMA_PATH, 'utf8');
    if (committed !== generated) {
      const a = committed.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        `clients/typescript/src/schema.d.ts is out of date with the OpenAPI document (first difference at line ${line + 1}: ` +
          `committed ${JSON.stringify(a[line] ?? '<end of file>')}, generated ${JSON.stringify(b[line] ?? '<end of file>')}). ` +
          `Run \`${CLIENT_GENERATE_COMMAND}\` and commit the result.`,
      );
    }
  });

  it('carry the enumerations a generator needs (closed sets as unions, no request default made required)', () => {
    const committed = readFileSync(CLIENT_SCHEMA_PATH, 'utf8');
    // The order lifecycle's states, the webhook event names of a subscription, a coupon's discount type.
    expect(committed).toMatch(/OrderStatus: "pending_payment" \| "paid" \|/);
    expect(committed).toMatch(/events: \("session\.completed" \| "payment\.succeeded"/);
    expect(committed).toMatch(/discountType: "percent" \| "fixed"/);
  });
});
