import { eq } from 'drizzle-orm';
import { type CrmAuthType, crmConnections } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { forClinic } from '../../../platform/db/scoped';
import { isoOrNull } from '../../../platform/values/dates';
import { notFound } from '../../../platform/values/errors';
import { credentialHintFor, encryptCrmCredentials } from './credentials';
import { signOAuthState } from './oauth-state';
import { CRM_PROVIDERS, type CrmProvider, PROVIDERS } from './providers';
import type { ConnectApiKeyBody, CrmConnection, PhiSyncBody } from './schemas';

const RESOURCE = 'CRM connection';

/** Only these columns are ever read for a response: encrypted_credentials is not among them. */
const safeColumns = {
  provider: crmConnections.provider,
  authType: crmConnections.authType,
  credentialHint: crmConnections.credentialHint,
  accountName: crmConnections.accountName,
  phiSyncEnabled: crmConnections.phiSyncEnabled,
  baaAttestedAt: crmConnections.baaAttestedAt,
  connectedAt: crmConnections.connectedAt,
  lastSyncedAt: crmConnections.lastSyncedAt,
};

interface SafeRow {
  provider: string;
  authType: CrmAuthType;
  credentialHint: string | null;
  accountName: string | null;
  phiSyncEnabled: boolean;
  baaAttestedAt: Date | null;
  connectedAt: Date;
  lastSyncedAt: Date | null;
}

const toConnection = (row: SafeRow): CrmConnection => ({
  provider: row.provider as CrmProvider,
  authType: row.authType,
  credentialHint: row.credentialHint,
  accountName: row.accountName,
  phiSyncEnabled: row.phiSyncEnabled,
  baaAttestedAt: isoOrNull(row.baaAttestedAt),
  connectedAt: row.connectedAt.toISOString(),
  lastSyncedAt: isoOrNull(row.lastSyncedAt),
});

/** The clinic's connection, or null when it has none. */
export async function getCrmConnection({ db, clinicId }: HandlerContext): Promise<CrmConnection | null> {
  const [row] = await db.select(safeColumns).from(crmConnections).where(eq(crmConnections.clinicId, clinicId)).limit(1);
  return row ? toConnection(row) : null;
}

/**
 * Connects (or replaces the clinic's connection) with an API key, stored encrypted. A replaced
 * connection's settings do not carry over: PHI sync starts off and the BAA must be attested again.
 */
export async function connectWithApiKey(ctx: HandlerContext, body: ConnectApiKeyBody): Promise<CrmConnection> {
  const { db, clinicId } = ctx;
  const dataKey = ctx.config.secretKeys;
  const now = ctx.now();
  const encryptedCredentials = await encryptCrmCredentials({ apiKey: body.apiKey }, clinicId, dataKey);
  const values = {
    provider: body.provider,
    authType: 'api_key' as const,
    encryptedCredentials,
    credentialHint: credentialHintFor(body.apiKey),
    accountName: null,
    phiSyncEnabled: false,
    baaAttestedAt: null,
    connectedAt: now,
    lastSyncedAt: null,
    updatedAt: now,
  };
  const [row] = await db
    .insert(crmConnections)
    .values({ ...values, clinicId, createdAt: now })
    .onConflictDoUpdate({ target: crmConnections.clinicId, set: values })
    .returning(safeColumns);
  return toConnection(row!);
}

/** Disconnects: the row and its encrypted credentials are deleted. 404 when not connected. */
export async function disconnectCrm({ db, clinicId }: HandlerContext) {
  const [removed] = await db
    .delete(crmConnections)
    .where(eq(crmConnections.clinicId, clinicId))
    .returning({ provider: crmConnections.provider });
  if (!removed) throw notFound(RESOURCE);
  return { provider: removed.provider as CrmProvider, disconnected: true as const };
}

/**
 * Turns PHI sync on or off. Enabling needs baaAttested true (checked by the body schema, 400); a true
 * baaAttested records the attestation (baaAttestedAt = now), a false one keeps the previous record.
 */
export async function setPhiSync(ctx: HandlerContext, body: PhiSyncBody): Promise<CrmConnection> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const changes: Partial<typeof crmConnections.$inferInsert> = { phiSyncEnabled: body.phiSyncEnabled, updatedAt: now };
  if (body.baaAttested) changes.baaAttestedAt = now;
  const [row] = await db.update(crmConnections).set(changes).where(forClinic(db, clinicId).where(crmConnections)).returning(safeColumns);
  if (!row) throw notFound(RESOURCE);
  return toConnection(row);
}

/**
 * The provider OAuth starts with when the request names none (the specification's request is "none"):
 * the clinic's connected provider (its choice, re-authorised), else the first provider, in the order
 * of CRM_PROVIDERS, that this deployment can start OAuth with, else the first provider (whose start
 * then answers the deployment's 503). One indexed read of the clinic's connection row.
 */
export async function defaultOAuthProvider(
  { db, clinicId }: HandlerContext,
  canStart: (provider: CrmProvider) => boolean,
): Promise<CrmProvider> {
  const [connected] = await db
    .select({ provider: crmConnections.provider })
    .from(crmConnections)
    .where(eq(crmConnections.clinicId, clinicId))
    .limit(1);
  if (connected) return connected.provider as CrmProvider;
  return CRM_PROVIDERS.find(canStart) ?? CRM_PROVIDERS[0];
}

export interface OAuthApp {
  clientId: string;
  redirectUri: string;
}

/**
 * The authorize URL of the provider's consent screen with a signed, expiring state. Reads and writes
 * nothing in the database: the connection is stored only when the callback completes.
 */
export async function startOAuth(ctx: HandlerContext, provider: CrmProvider, app: OAuthApp) {
  const dataKey = ctx.config.secretKeys;
  const info = PROVIDERS[provider];
  const { state, expiresAt } = await signOAuthState(ctx.clinicId, provider, dataKey, ctx.now());
  const url = new URL(info.authorizeEndpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', app.redirectUri);
  if (info.scopes.length) url.searchParams.set('scope', info.scopes.join(' '));
  for (const [name, value] of Object.entries(info.extraParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('state', state);
  return { provider, authorizeUrl: url.toString(), state, expiresAt: expiresAt.toISOString() };
}
