// Breaks platform-floor-db-crypto: the database layer importing auth.
import { who } from '../auth/who';

export const db = who;
