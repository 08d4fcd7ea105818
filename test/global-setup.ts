// Starts the PostgreSQL the tests run on, once per run, and migrates a template database that every
// test file clones (CREATE DATABASE ... TEMPLATE), so each file gets a fresh migrated database fast.
// TEST_DATABASE_URL=postgres://user@host:port/db runs everything on that server instead.
import type { TestProject } from 'vitest/node';
import { startTestServer } from './tooling/test-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: { serverUrl: string; template: string; embedded: boolean };
  }
}

export default async function setup(project: TestProject) {
  const server = await startTestServer('test');
  const template = `brand_admin_template_${process.pid}`;
  await server.createMigratedDatabase(template);
  console.log(`Tests use ${server.embedded ? 'an embedded PostgreSQL 17' : 'the PostgreSQL at TEST_DATABASE_URL'}; template ${template}.`);
  project.provide('testDatabase', { serverUrl: server.serverUrl, template, embedded: server.embedded });
  return () => server.stop();
}
