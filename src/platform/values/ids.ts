import { z } from '@hono/zod-openapi';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * A path id. Deliberately a plain string: a malformed id must answer the same 404 as an unknown one,
 * not a 400, so the uuid check happens in the scoped query helper. Use inside z.object({ name: ... }).
 */
export const pathId = (name: string) =>
  z.string().openapi({ param: { name, in: 'path' }, format: 'uuid', example: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10' });

/** The common { id } path parameters. */
export const idParam = () => z.object({ id: pathId('id') });
