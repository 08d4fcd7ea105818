// Plausible valid values for OpenAPI schemas of the app's generated document: what the route-table
// suites (no-5xx, faults) send as a body when a test has none of its own.
import type { documentOf } from './strict-response';
import { resolveSchema } from './strict-response';

type Schema = Record<string, unknown>;
type Document = ReturnType<typeof documentOf>;

/** The schema's types, without "null". */
export const typesOf = (schema: Schema) =>
  ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []).filter((x) => x !== 'null');

/** A plausible valid value for a schema: its example, else the first enum value, else one built from its type and limits. */
export function sample(document: Document, raw: Schema, depth = 0): unknown {
  const schema = resolveSchema(document, raw);
  if (depth > 8) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => sample(document, s, depth + 1)));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword] as Schema[] | undefined;
    if (branches)
      return sample(
        document,
        branches.find((b) => !typesOf(resolveSchema(document, b)).length || typesOf(resolveSchema(document, b))[0] !== 'null') ??
          branches[0]!,
        depth + 1,
      );
  }
  const type = typesOf(schema)[0] ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([k, s]) => [k, sample(document, s, depth + 1)]),
      );
    case 'array':
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () =>
        sample(document, (schema.items ?? {}) as Schema, depth + 1),
      );
    case 'integer':
    case 'number':
      return Math.min(Number(schema.maximum ?? Number.MAX_SAFE_INTEGER), Math.max(Number(schema.minimum ?? 1), 1));
    case 'boolean':
      return true;
    default: {
      const formats: Record<string, () => string> = {
        'date-time': () => new Date(Date.now() + 7 * 86_400_000).toISOString(),
        date: () => '2031-01-01',
        uuid: () => crypto.randomUUID(),
        email: () => 'someone@example.test',
        uri: () => 'https://example.test/',
      };
      return formats[schema.format as string]?.() ?? 'x'.repeat(Math.max(1, Number(schema.minLength ?? 6)));
    }
  }
}
