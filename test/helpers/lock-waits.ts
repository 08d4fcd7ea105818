import type pg from 'pg';

/**
 * Waits until `count` sessions of the client's database wait on a lock (pg_stat_activity), so a test
 * holding a lock knows every racer it started is queued behind it before it lets them go.
 */
export async function waitForLockWaiters(client: pg.Client, count: number, what = 'the racers'): Promise<void> {
  for (let i = 0; ; i++) {
    // pg_stat_activity is a snapshot per transaction: clear it before each look.
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ waiting: number }>(
      "select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if (rows[0]!.waiting >= count) return;
    if (i > 200) throw new Error(`${what} never all waited on the lock`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
