// CRM (spec: "CRM contacts, tags, sequences, templates", "CRM connection", "Affiliate program"):
// contacts, tags, message templates, sequences and their runner, the external CRM connection, and the
// affiliate program.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { affiliateRoutes } from './affiliate-program/affiliates/routes';
import { payoutRoutes } from './affiliate-program/payouts/routes';
import { affiliateProgramRoutes } from './affiliate-program/routes';
import { taxDocumentRoutes } from './affiliate-program/tax-documents/routes';
import { tierRoutes } from './affiliate-program/tiers/routes';
import { crmConnectionRoutes } from './connection/routes';
import { contactRoutes } from './contacts/routes';
import { messageTemplateRoutes } from './message-templates/routes';
import { sequenceRoutes } from './sequences/routes';
import { sequenceSweep } from './sequences/runner';
import { tagRoutes } from './tags/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', contactRoutes)
  .route('/', tagRoutes)
  .route('/', messageTemplateRoutes)
  .route('/', sequenceRoutes)
  .route('/', affiliateProgramRoutes)
  .route('/', affiliateRoutes)
  .route('/', payoutRoutes)
  .route('/', taxDocumentRoutes)
  .route('/', tierRoutes)
  .route('/', crmConnectionRoutes);

/** CRM sequences: enroll by trigger, run due steps (docs/crm-sequences.md). They queue messages. */
export const sweeps: Record<string, Sweep> = { sequenceSweep };

// What the demo data (scripts/seed) builds its rows with.
export { generatePayouts } from './affiliate-program/payouts/generate';
export { lastCompletePeriod } from './affiliate-program/rules';
export { credentialHintFor, encryptCrmCredentials } from './connection/credentials';
export { listContacts, welcomeEmail } from './contacts/service';
export { extractMergeFields, renderMergeFields } from './message-templates/merge-fields';
