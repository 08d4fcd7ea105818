// Breaks platform-floor-values: a value helper importing the database layer.
import { db } from '../db/client';

export const value = db;
