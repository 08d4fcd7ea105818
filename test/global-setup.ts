// Starts the PostgreSQL the tests run on, once per run, and migrates a template database that every
// test file clones (CREATE DATABASE ... TEMPLATE), so each file gets a fresh migrated database fast.
// TEST_DATABASE_URL=postgres://user@host:port/db runs everything on that server instead.
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { migrateDatabase } from '../drizzle/migrate';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../scripts/lib/embedded-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: { serverUrl: string; template: string; embedded: boolean };
  }
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup(project: TestProject) {
  let embedded: RunningPostgres | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: `/tmp/brand-admin-test-pg-${process.pid}`, port: await freePort(), persistent: false });
    serverUrl = embedded.url;
  }
  const template = `brand_admin_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  await admin.end();
  await migrateDatabase(databaseUrl(serverUrl, template));
  console.log(`Tests use ${embedded ? 'an embedded PostgreSQL 17' : `the PostgreSQL at TEST_DATABASE_URL`}; template ${template}.`);
  project.provide('testDatabase', { serverUrl, template, embedded: !!embedded });

  return async () => {
    if (embedded) return embedded.stop();
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${template} with (force)`);
    await cleanup.end();
  };
}
