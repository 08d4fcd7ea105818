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

/** How many statements one request sends, leaving out the request log's writes (batched off the request path). */
export async function countStatements(t: Pick<TestApp, 'flush' | 'queries'>, send: () => Promise<{ status: number }>) {
  const { status, all } = await statementsOf(t, send);
  return { status, count: all.filter((sql) => !sql.includes('"request_logs"')).length };
}
