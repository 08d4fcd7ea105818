import type { Context } from 'hono';
import type { AppEnv } from '../../../platform/context';

/** The request's services and the key's clinic: every program query is scoped to it. */
export const services = (c: Context<AppEnv>) => ({ ...c.get('services'), clinicId: c.get('apiKey').clinicId });
