import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { connect } from '../../scripts/lib/database';
import { databaseUrl } from '../global-setup';

/** A fresh, migrated database for one test file, cloned from the run's template; dropped on close. */
export async function createTestDatabase(onQuery?: (sql: string) => void) {
  const { serverUrl, template } = inject('testDatabase');
  const name = `brand_admin_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${template}`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  const connection = connect(url, 4, onQuery);
  return {
    url,
    db: connection.db,
    pool: connection.pool,
    async close() {
      await connection.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
