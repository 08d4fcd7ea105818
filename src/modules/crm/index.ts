// CRM (spec: "CRM contacts, tags, sequences, templates", "CRM connection", "Affiliate program"):
// contacts, tags, message templates, sequences and their runner, the external CRM connection, and the
// affiliate program.
import type { Sweep } from '../../platform/sweep';
import { sequenceSweep } from './sequences/runner';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

/** CRM sequences: enroll by trigger, run due steps (docs/crm-sequences.md). They queue messages. */
export const sweeps: Record<string, Sweep> = { sequenceSweep };

// What the demo data (scripts/seed) builds its rows with.
export { generatePayouts } from './affiliate-program/payouts/generate';
export { lastCompletePeriod } from './affiliate-program/rules';
export { credentialHintFor, encryptCrmCredentials } from './connection/credentials';
export { listContacts, welcomeEmail } from './contacts/service';
export { extractMergeFields, renderMergeFields } from './message-templates/merge-fields';
