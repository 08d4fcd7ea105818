// What a write left in the database, table by table: a snapshot is the multiset of every row's hash in
// every table of the public schema, and the difference of two snapshots says, per table, how many rows
// appeared and how many went away (an updated row is one of each). Comparing the difference a write
// leaves after a fault with the one it leaves when nothing goes wrong tells all of it from part of it.
import pg from 'pg';

/** Rows written after the answer, not part of the operation (the request log and the key's last use). */
const IGNORED_TABLES = new Set(['request_logs']);
const IGNORED_COLUMNS = ['last_used_at'];

export type Snapshot = Map<string, Map<string, number>>;
/** Per table that changed: rows that appeared and rows that went away. */
export type Change = Record<string, { added: number; removed: number }>;

export interface Snapshots {
  take(): Promise<Snapshot>;
  close(): Promise<void>;
}

/** Snapshots of the database at `url`, on a connection of their own (one statement, prepared once). */
export async function snapshotsOf(url: string): Promise<Snapshots> {
  const client = new pg.Client({ connectionString: url, application_name: 'faults-snapshots' });
  client.on('error', () => {});
  await client.connect();
  const { rows: tables } = await client.query<{ name: string; columns: string[] }>(
    // Partitions are left out: their rows are read through their parent (request_logs and
    // audit_events are partitioned by month, migration 0022).
    `select c.table_name as name, array_agg(c.column_name::text) as columns
       from information_schema.columns c
       join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
        and not (select relispartition from pg_class where oid = format('public.%I', c.table_name)::regclass)
      group by c.table_name order by 1`,
  );
  const text = tables
    .filter(({ name }) => !IGNORED_TABLES.has(name))
    .map(({ name, columns }) => {
      const ignored = columns.filter((column) => IGNORED_COLUMNS.includes(column));
      const row = ignored.length ? `(to_jsonb(x) - array[${ignored.map((c) => `'${c}'`).join(', ')}])::text` : 'x::text';
      return `select '${name}' as t, md5(${row}) as h from public."${name}" x`;
    })
    .join(' union all ');
  return {
    async take() {
      const { rows } = await client.query<{ t: string; h: string }>({ name: 'faults-snapshot', text });
      const state: Snapshot = new Map();
      for (const { t, h } of rows) {
        const table = state.get(t) ?? new Map<string, number>();
        table.set(h, (table.get(h) ?? 0) + 1);
        state.set(t, table);
      }
      return state;
    },
    close: () => client.end(),
  };
}

/** What changed from `before` to `after`, per table (tables without a change are left out). */
export function changeBetween(before: Snapshot, after: Snapshot): Change {
  const change: Change = {};
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(table) ?? new Map<string, number>();
    const b = after.get(table) ?? new Map<string, number>();
    let added = 0;
    let removed = 0;
    for (const [hash, count] of b) added += Math.max(0, count - (a.get(hash) ?? 0));
    for (const [hash, count] of a) removed += Math.max(0, count - (b.get(hash) ?? 0));
    if (added || removed) change[table] = { added, removed };
  }
  return change;
}

export const isEmpty = (change: Change) => Object.keys(change).length === 0;

export function describeChange(change: Change): string {
  const parts = Object.entries(change)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, { added, removed }]) => `${table} +${added}/-${removed}`);
  return parts.length ? parts.join(', ') : 'nothing';
}
