import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';

/** Staff roles of a clinic; owner and admin are brand admins (they may manage API keys). */
export const USER_ROLES = ['owner', 'admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const BRAND_ADMIN_ROLES: readonly UserRole[] = ['owner', 'admin'];

export const users = pgTable(
  'users',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    /** Stored lower-cased; unique across the platform so sign-in needs no clinic. */
    email: text('email').notNull(),
    /** pbkdf2-sha256$<iterations>$<salt b64>$<hash b64> */
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    role: text('role').$type<UserRole>().notNull().default('member'),
    isActive: boolean('is_active').notNull().default(true),
    lastSignInAt: timestamptz('last_sign_in_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    index('users_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('users_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
    check('users_email_lower_check', sql`${t.email} = lower(${t.email})`),
  ],
);
