// Lints the OpenAPI document the server serves with a maintained linter (Redocly's `recommended` rules,
// whose `struct` rule also checks the document is valid OpenAPI 3.1), so every route a later area
// declares is checked here without writing anything new. Any problem fails, a warning as an error.
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app';
import { defineRoute } from '../../../src/platform/http/route';
import { openApiDocument } from '../../../src/platform/openapi/document';

/** The same call GET /api/v1/openapi.json answers with; building the document needs no services. */
const document = () => openApiDocument(createApp(() => Promise.reject(new Error('the document needs no services'))));

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function operations(doc: ReturnType<typeof document>) {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = (item as Record<string, { operationId?: string } | undefined>)[method];
      return operation ? [{ name: `${method.toUpperCase()} ${path}`, operationId: operation.operationId }] : [];
    }),
  );
}

const describeProblem = (p: NormalizedProblem) =>
  `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer ?? l.source.absoluteRef).join(', ') || '(document)'}: ${p.message}`;

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended ruleset with no error and no warning", async () => {
    // The whole ruleset as published; a rule that is wrong for this API is switched off here, alone,
    // with the reason next to it:
    // - no-ambiguous-paths: the spec itself defines GET /clinic/check-slug/{slug} beside POST
    //   /clinic/{id}/upload-logo, and DELETE /team/invitations/{invitationId} beside PATCH
    //   /team/{userId}/role (the rule's two warnings); the methods differ, so no request can match both.
    //   test/api/platform/path-overlaps.test.ts checks that these are the only such pairs, that they share
    //   no method, that each operation says so (x-path-overlap), and that the colliding URLs route by method.
    // - no-server-example.com: the first server is a placeholder on purpose (each deployment has its own
    //   host; the document has one absolute production URL for tools that import it alone, and the local
    //   one), docs/api-conventions.md, "The document and the tools".
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'no-ambiguous-paths': 'off', 'no-server-example.com': 'off' },
    });
    const problems = await lintFromString({
      source: JSON.stringify(document()),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(problems.map(describeProblem), 'Redocly recommended: fix the route declarations or the document').toEqual([]);
  });

  it('gives every operation a unique lowerCamelCase operationId', () => {
    const all = operations(document());
    expect(all.length).toBeGreaterThan(0);
    const seen = new Map<string, string>();
    for (const { name, operationId } of all) {
      expect(operationId, name).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(seen.get(operationId!), `${name} reuses the operationId of ${seen.get(operationId!)}`).toBeUndefined();
      seen.set(operationId!, name);
    }
  });

  it('declares a license', () => {
    expect(document().info.license).toMatchObject({ name: 'Proprietary' });
  });

  it('refuses (at compile time) a route declared without an operationId', () => {
    // `npm run typecheck` fails if operationId ever becomes optional: the directive below then has no error to expect.
    const withoutOperationId = { method: 'get', path: '/no-operation-id', summary: 'x', responses: { 200: { description: 'x' } } } as const;
    // @ts-expect-error operationId is required
    const route = defineRoute({ auth: 'public' }, withoutOperationId);
    expect(route.operationId).toBeUndefined();
  });
});
