import type { TestApp } from './app';

/**
 * Every SQL statement one request sends through the test app's database, in order: the app's background
 * work is settled before and after, so only this request's statements (and its request-log write) are seen.
 */
export async function statementsOf(t: Pick<TestApp, 'flush' | 'queries'>, send: () => Promise<{ status: number }>) {
  await t.flush();
  t.queries.length = 0;
  const res = await send();
  await t.flush();
  return { status: res.status, all: [...t.queries] };
}

/**
 * How many statements one request sends with a cold key cache (so the key lookup is counted, as on an
 * isolate's first request with that key), leaving out the request log's writes (batched off the request
 * path). The warm count is one less; test/api/platform/read-statements.test.ts checks both for every read.
 */
export async function countStatements(
  t: Pick<TestApp, 'flush' | 'queries'> & Partial<Pick<TestApp, 'forgetKeys'>>,
  send: () => Promise<{ status: number }>,
) {
  t.forgetKeys?.();
  const { status, all } = await statementsOf(t, send);
  // The request log and the patient-data reads' audit rows are written after the answer (background).
  return { status, count: all.filter((sql) => !sql.includes('"request_logs"') && !sql.includes('insert into "audit_events"')).length };
}
