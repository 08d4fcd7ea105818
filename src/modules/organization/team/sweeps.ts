import type { Sweep } from '../../../platform/sweep';
import { expireInvitations } from './service';

/** Marks pending invitations past their expiry as expired (the cron sweep, src/scheduled.ts). */
export const expireTeamInvitations: Sweep = async (db, now) => {
  await expireInvitations(db, now);
};
