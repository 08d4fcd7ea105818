// The OpenAPI document as the tools an integrator reaches for read it (docs/api-conventions.md, "The
// document and the tools"): Spectral's `spectral:oas` ruleset with no warning, the OWASP API ruleset
// no worse than the counts recorded below (each with its reason), schema names no generator makes twice,
// and three code generators (openapi-typescript, @hey-api/openapi-ts, orval) whose output, with a small
// call of each, compiles under `tsc --strict`. Redocly runs beside it (openapi-lint.test.ts).
// Everything here runs offline, from the pinned devDependencies.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Document, Spectral } from '@stoplight/spectral-core';
import owaspRuleset from '@stoplight/spectral-owasp-ruleset';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app';
import { openApiDocument } from '../../../src/platform/openapi/document';
import { TAG_DESCRIPTIONS } from '../../../src/platform/openapi/tags';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const document = openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services'))));
const text = JSON.stringify(document);

/**
 * OWASP API Security ruleset (@stoplight/spectral-owasp-ruleset): the most problems each rule may still
 * report, measured, with why they remain. A rule not listed must report none. Lower a figure when a
 * change fixes some; never raise one without the reason here. Raised once (2026-11-27) by the webhooks'
 * recover operation: its answer's strings and integer, and its CORS and 500 lines, for the reasons below.
 */
const OWASP_REMAINING: Record<string, { count: number; reason: string }> = {
  'owasp:api4:2023-string-limit': {
    count: 1406,
    reason:
      'Mostly response strings (the rule checks every schema): what the API answers, not input it must bound. ' +
      'Request strings: 290 of 319 carry the maxLength zod enforces; the other 29 are bounded by a pattern (hex colours, ' +
      "status filters), by a refine (request id, phone, hostname), or are ignored (the dashboards' clinicId) — no max to declare without changing what is accepted. " +
      "The audit trail's routes add response strings and their createdGte/createdLte range (date-times checked by a refine, as the request logs' are).",
  },
  'owasp:api4:2023-string-restricted': {
    count: 1062,
    reason: 'Free text (names, descriptions, notes, markup): no format, pattern or enum describes it; mostly in responses.',
  },
  'owasp:api4:2023-array-limit': {
    count: 132,
    reason:
      'Response arrays (pages are bounded by limit, not by the schema); the one request array without maxItems is GET /events type, a repeated query parameter.',
  },
  'owasp:api4:2023-integer-limit': {
    count: 256,
    reason: 'Response integers (counts, amounts in cents) and request integers zod bounds only by .int(): no maximum the API enforces.',
  },
  'owasp:api8:2023-define-cors-origin': {
    count: 1763,
    reason: 'A server-to-server API: no CORS headers are sent (a browser calls only the checkout preflight), so none is declared.',
  },
  'owasp:api8:2023-define-error-responses-500': {
    count: 472,
    reason: 'A 500 is a bug, not a documented answer (the no-5xx suite checks that bad input never gets one); it stays undeclared.',
  },
  'owasp:api8:2023-define-error-responses-401': { count: 2, reason: 'GET /healthz and POST /auth/signin take no credentials.' },
  'owasp:api2:2023-read-restricted': { count: 1, reason: 'GET /healthz is public by design.' },
  'owasp:api2:2023-write-restricted': { count: 1, reason: 'POST /auth/signin is where credentials are exchanged.' },
  'owasp:api5:2023-admin-security-unique': {
    count: 2,
    reason:
      'Paths containing "admin" (the likes analytics) are clinic reads with the same x-api-key as the rest; no separate admin scheme exists.',
  },
  'owasp:api2:2023-no-credentials-in-url': { count: 1, reason: "GET /request-logs?apiKeyId= is a key's id (a uuid), not the key." },
  'owasp:api2:2023-jwt-best-practices': {
    count: 1,
    reason: 'The rule wants the BearerToken description to cite RFC 8725; not claimed until the sign-in token is reviewed against it.',
  },
  'owasp:api8:2023-no-server-http': { count: 1, reason: 'http://127.0.0.1:8787 is the local development server (x-internal: true).' },
};

async function lint(ruleset: unknown) {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset as Parameters<Spectral['setRuleset']>[0]);
  return spectral.run(new Document(text, Json, 'openapi.json'));
}

let dir: string;
/** The three generators, started before the linters so that their processes run while Spectral does. */
let generated: Promise<unknown>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'openapi-tools-'));
  const input = join(dir, 'openapi.json');
  writeFileSync(input, text);
  mkdirSync(join(dir, 'orval'));
  writeFileSync(
    join(dir, 'orval.config.cjs'),
    `module.exports = { api: { input: ${JSON.stringify(input)}, output: { target: ${JSON.stringify(join(dir, 'orval', 'api.ts'))}, client: 'fetch', mode: 'single' } } };\n`,
  );
  generated = Promise.all([
    run(bin('openapi-typescript'), [input, '-o', join(dir, 'openapi-typescript', 'schema.d.ts')], { cwd: dir }),
    run(bin('openapi-ts'), ['-i', input, '-o', join(dir, 'hey-api')], { cwd: dir }),
    run(bin('orval'), ['--config', join(dir, 'orval.config.cjs')], { cwd: dir }),
  ]);
  generated.catch(() => {}); // awaited (and reported) by the generators' test
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the OpenAPI document, read by the tools integrators use', () => {
  it("passes Spectral's spectral:oas ruleset with no warning", async () => {
    const results = await lint(oas);
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 120_000);

  it('has a described top-level tag for every tag an operation uses', () => {
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    for (const item of [...Object.values(document.paths ?? {}), ...Object.values(document.webhooks ?? {})]) {
      for (const operation of Object.values(item ?? {})) {
        for (const tag of (operation as { tags?: string[] }).tags ?? []) {
          expect(declared.get(tag), `tag "${tag}": add it to TAG_DESCRIPTIONS`).toBe(TAG_DESCRIPTIONS[tag]);
        }
      }
    }
  });

  it('marks the 8 legacy treatment operations deprecated, with Deprecation and Sunset on its responses (not 401/429)', () => {
    const deprecated = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item ?? {}).flatMap(([method, operation]) =>
        (operation as { deprecated?: boolean }).deprecated ? [{ name: `${method} ${path}`, operation }] : [],
      ),
    );
    expect(deprecated).toHaveLength(8);
    for (const { name, operation } of deprecated) {
      expect((operation as { tags: string[] }).tags, name).toEqual(['Treatments (legacy)']);
      for (const [status, response] of Object.entries((operation as { responses: Record<string, { headers?: object }> }).responses)) {
        if (status === '401' || status === '429') continue; // answered before the operation is known
        expect(Object.keys(response.headers ?? {}), `${name} ${status}`).toEqual(expect.arrayContaining(['Deprecation', 'Sunset']));
      }
    }
  });

  it('has absolute servers and no escaped / in a pattern', () => {
    for (const server of document.servers ?? []) expect(server.url).toMatch(/^https?:\/\/[^/]+/);
    expect(text).not.toMatch(/"pattern":"(?:[^"\\]|\\.)*?\\\\\//);
  });

  it('has no schema name a generator would also make for an inline schema (Parent + Property)', () => {
    const schemas = (document.components?.schemas ?? {}) as Record<string, { properties?: Record<string, { $ref?: string }> }>;
    const names = new Set(Object.keys(schemas));
    const lower = new Map<string, string>();
    const pascal = (name: string) => name.replace(/(^|[^a-zA-Z0-9])([a-zA-Z0-9])/g, (_, _sep, c: string) => c.toUpperCase());
    const collisions: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      const other = lower.get(name.toLowerCase());
      if (other) collisions.push(`${name} and ${other} differ only in case`);
      lower.set(name.toLowerCase(), name);
      for (const [property, value] of Object.entries(schema.properties ?? {})) {
        const generated = `${name}${pascal(property)}`;
        if (!value.$ref && names.has(generated))
          collisions.push(`${name}.${property} (inline) would be named ${generated}, a schema of its own`);
      }
    }
    expect(collisions).toEqual([]);
  });

  it('meets the OWASP API ruleset but for the problems recorded, each with its reason', async () => {
    const counts: Record<string, number> = {};
    for (const result of await lint(owaspRuleset)) counts[String(result.code)] = (counts[String(result.code)] ?? 0) + 1;
    const over = Object.entries(counts)
      .filter(([rule, count]) => count > (OWASP_REMAINING[rule]?.count ?? 0))
      .map(([rule, count]) => `${rule}: ${count} (recorded: ${OWASP_REMAINING[rule]?.count ?? 0})`);
    console.info(`[openapi-tools] OWASP remaining per rule: ${JSON.stringify(counts)}`);
    expect(over).toEqual([]);
  }, 180_000);

  it('generates clients with openapi-typescript, @hey-api/openapi-ts and orval, each compiling a call under tsc --strict', async () => {
    await generated;
    writeFileSync(
      join(dir, 'openapi-typescript-call.ts'),
      [
        "import type { paths } from './openapi-typescript/schema';",
        "type Orders = paths['/api/v1/orders']['get']['responses'][200]['content']['application/json'];",
        "type Query = NonNullable<paths['/api/v1/orders']['get']['parameters']['query']>;",
        'export const firstOrderId = (orders: Orders): string | undefined => orders.data[0]?.id;',
        'export const query: Query = { limit: 10 };',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'hey-api-call.ts'),
      [
        "import { client } from './hey-api/client.gen';",
        "import { listOrders } from './hey-api/sdk.gen';",
        "client.setConfig({ baseUrl: 'http://127.0.0.1:8787', headers: { 'x-api-key': 'svc_test_x' } });",
        'export async function firstOrderId(): Promise<string | undefined> {',
        '  const { data } = await listOrders({ query: { limit: 10 } });',
        '  return data?.data[0]?.id;',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'orval-call.ts'),
      [
        "import { listOrders } from './orval/api';",
        'export async function firstOrderId(): Promise<string | undefined> {',
        "  const answer = await listOrders({ limit: 10 }, { headers: { 'x-api-key': 'svc_test_x' } });",
        '  return answer.status === 200 ? answer.data.data[0]?.id : undefined;',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
        },
        files: ['openapi-typescript-call.ts', 'hey-api-call.ts', 'orval-call.ts'],
      }),
    );
    const compiled = await run(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(compiled, 'tsc --strict over the generated clients and their calls').toBe('');
  }, 180_000);
});
