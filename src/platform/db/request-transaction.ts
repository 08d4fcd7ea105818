// A request's own transaction (an Idempotency-Key write, an audited write: http/idempotency.ts,
// http/audit.ts) in fewer round trips. On node-postgres in pipeline mode (openDatabase, and the tests'
// pools) BEGIN is sent with the body's first statement, and the body's last statement with COMMIT,
// each pair written without waiting for the first answer: a write of one statement costs two round
// trips, not four. Elsewhere (Neon's driver, which does not pipeline) it is Drizzle's transaction with
// the last statement before COMMIT: the same statements and the same outcome, one round trip each.
//
// Atomicity does not depend on the pipelining: PostgreSQL runs the messages of a connection in order,
// a COMMIT after a failed statement ends the transaction as ROLLBACK (and says so), and the outcome is
// read from the answers of both before this returns.
import type { SQL } from 'drizzle-orm';
import type { Database, Transaction } from './client';

/** The body: runs on the transaction and answers the statement to send with COMMIT, if any. */
export type TransactionBody = (tx: Transaction) => Promise<SQL | undefined>;

/** How a database runs a pipelined request transaction (registered by pipelineTransactions). */
type Runner = (body: TransactionBody) => Promise<void>;

const runners = new WeakMap<object, Runner>();

/** The part of a pg client this needs. */
export interface PipelinedClient {
  query(text: string, values?: unknown[]): Promise<{ command: string }>;
  release(error?: Error | boolean): void;
}

/** The driver module drizzle-orm/node-postgres, passed in (the Neon build does not carry it). */
export interface NodePgDriver {
  NodePgSession: new (client: never, dialect: never, schema: undefined, options: { logger?: unknown }) => unknown;
  NodePgTransaction: new (dialect: never, session: never, schema: undefined) => unknown;
}

/** What pipelineTransactions needs of a node-postgres database. */
export interface PipelineParts {
  /** The pool under the database; its clients were made with `pipeline: true`. */
  pool: { connect(): Promise<PipelinedClient> };
  driver: NodePgDriver;
  /** Drizzle's logger of the database, if any: the statements sent here are logged to it too. */
  logger?: { logQuery(query: string, params: unknown[]): void };
}

/** Thrown when COMMIT answered ROLLBACK: a statement of the body failed and its error was swallowed. */
export class TransactionRolledBack extends Error {
  constructor() {
    super('The transaction was rolled back at commit: one of its statements had failed');
    this.name = 'TransactionRolledBack';
  }
}

const ignore = () => {};

/** Registers the pipelined runner of a node-postgres database (its pool's clients pipeline). */
export function pipelineTransactions(db: Database, { pool, driver, logger }: PipelineParts): void {
  // Drizzle's dialect of this database (internal in its types; present on every PgDatabase).
  const dialect = (db as unknown as { dialect: { sqlToQuery(sql: SQL): { sql: string; params: unknown[] } } }).dialect;
  const send = (client: PipelinedClient, text: string, values?: unknown[]) => {
    logger?.logQuery(text, values ?? []);
    const answer = client.query(text, values);
    answer.catch(ignore); // read below; never an unhandled rejection meanwhile
    return answer;
  };
  runners.set(db, async (body) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    // Sent now, answered with the body's first statement; an error here fails that statement too.
    const begun = send(client, 'begin');
    try {
      const session = new driver.NodePgSession(client as never, dialect as never, undefined, { logger });
      const last = await body(new driver.NodePgTransaction(dialect as never, session as never, undefined) as Transaction);
      await begun;
      const query = last ? dialect.sqlToQuery(last) : undefined;
      // Both written before either answer is read: one round trip.
      const lastDone = query ? send(client, query.sql, query.params) : undefined;
      const committed = send(client, 'commit');
      if (lastDone) await lastDone;
      if ((await committed).command !== 'COMMIT') throw new TransactionRolledBack();
    } catch (error) {
      await send(client, 'rollback').catch((rollbackError: unknown) => {
        // The connection is gone: the pool must not hand it out again.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  });
}

/** Runs a request transaction: pipelined where the database was registered, else Drizzle's transaction. */
export async function requestTransaction(db: Database, body: TransactionBody): Promise<void> {
  const run = runners.get(db);
  if (run) return run(body);
  await db.transaction(async (tx) => {
    const last = await body(tx);
    if (last) await tx.execute(last);
  });
}
