import type { Sweep } from '../../../platform/cron';
import { expireInvitations } from './service';

/** Marks pending invitations past their expiry as expired (add to SWEEPS in src/platform/cron.ts). */
export const expireTeamInvitations: Sweep = async (db, now) => {
  await expireInvitations(db, now);
};
