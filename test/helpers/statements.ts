import type { TestApp } from './app';

/** Request-log writes are batched off the request path; a request's own work is everything else. */
const isRequestLogWrite = (sql: string) => sql.includes('"request_logs"');

/**
 * The SQL statements one request sends through the test app's database: the app's background work is
 * settled before and after, so only this request's statements are counted. `count` leaves the request
 * log's batched writes out; `all` is every statement, in order.
 */
export async function countStatements(t: Pick<TestApp, 'flush' | 'queries'>, send: () => Promise<{ status: number }>) {
  await t.flush();
  t.queries.length = 0;
  const res = await send();
  await t.flush();
  const all = [...t.queries];
  return { status: res.status, count: all.filter((sql) => !isRequestLogWrite(sql)).length, all };
}
