import { z } from '@hono/zod-openapi';
import { pageQuery } from '../../../platform/http/pagination';
import { safeString, text } from '../../../platform/values/strings';

/** #rgb or #rrggbb (stored lower-cased). */
export const TAG_COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const MAX_TAG_NAME = 50;
export const MAX_TAG_CATEGORY = 50;
export const MAX_TAG_DESCRIPTION = 500;

const tagFields = {
  name: safeString()
    .trim()
    .min(1)
    .max(MAX_TAG_NAME)
    .openapi({ description: `1-${MAX_TAG_NAME} characters; unique in the clinic ignoring case.`, example: 'VIP' }),
  color: safeString()
    .trim()
    .regex(TAG_COLOR_PATTERN, 'must be a hex color: #rgb or #rrggbb')
    .openapi({ description: 'Hex color, #rgb or #rrggbb (stored lower-cased).', example: '#1f8a70' }),
  description: text().trim().max(MAX_TAG_DESCRIPTION).nullable().openapi({ example: 'Patients on a premium plan' }),
  category: safeString()
    .trim()
    .min(1)
    .max(MAX_TAG_CATEGORY)
    .nullable()
    .openapi({ description: 'Free text used to group tags (GET /tags?category= matches it exactly); null: none.', example: 'lifecycle' }),
  isActive: z.boolean().openapi({ description: 'An inactive tag stays on the contacts that have it but cannot be assigned again.' }),
};

export const createTagBody = z
  .object({
    ...tagFields,
    description: tagFields.description.default(null),
    category: tagFields.category.default(null),
    isActive: tagFields.isActive.default(true),
  })
  .strict()
  .openapi('CreateTagRequest');
export type CreateTagBody = z.infer<typeof createTagBody>;

export const updateTagBody = z
  .object(tagFields)
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must contain at least one field' })
  .openapi('UpdateTagRequest', { description: 'A partial update: only the fields sent change.' });
export type UpdateTagBody = z.infer<typeof updateTagBody>;

export const listTagsQuery = pageQuery.extend({
  category: safeString()
    .trim()
    .min(1)
    .max(MAX_TAG_CATEGORY)
    .optional()
    .openapi({ description: 'Only tags of this category (exact match).', example: 'lifecycle' }),
  isActive: z.enum(['true', 'false']).optional().openapi({ description: 'Only active (true) or inactive (false) tags.', example: 'true' }),
});
export type ListTagsQuery = z.infer<typeof listTagsQuery>;

export const tag = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    color: z.string().openapi({ example: '#1f8a70' }),
    clinicId: z.string().uuid(),
    isActive: z.boolean(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Tag');
export type Tag = z.infer<typeof tag>;

export const assignTagBody = z
  .object({
    userId: z
      .string()
      .uuid()
      .openapi({ description: "A contact (patient) of the clinic; another clinic's or an unknown one answers 404." }),
  })
  .strict()
  .openapi('AssignTagRequest');

export const tagAssignment = z
  .object({
    tagId: z.string().uuid(),
    userId: z.string().uuid(),
    assignedAt: z.string().datetime().openapi({ description: 'When the tag was first put on the contact.' }),
    alreadyAssigned: z
      .boolean()
      .openapi({ description: 'true: the contact already had the tag; nothing changed (assigning is idempotent).' }),
  })
  .openapi('TagAssignment');
export type TagAssignment = z.infer<typeof tagAssignment>;

export const removedTagAssignment = z
  .object({ tagId: z.string().uuid(), userId: z.string().uuid(), removed: z.literal(true) })
  .openapi('RemovedTagAssignment');
