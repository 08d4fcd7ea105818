import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { connect, databaseUrl, withClient } from '../../scripts/lib/database';
import { dropDatabase } from '../tooling/test-postgres';

/** A fresh, migrated database for one test file, cloned from the run's template; dropped on close. */
export async function createTestDatabase(onQuery?: (sql: string) => void) {
  const { serverUrl, template } = inject('testDatabase');
  const name = `brand_admin_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await withClient(serverUrl, (client) => client.query(`create database ${name} template ${template}`));
  const url = databaseUrl(serverUrl, name);
  const connection = connect(url, 4, onQuery);
  return {
    url,
    db: connection.db,
    pool: connection.pool,
    async close() {
      await connection.close();
      await dropDatabase(serverUrl, name);
    },
  };
}
