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
import type { Database, Transaction } from './types';

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

/** Drizzle's transaction of node-postgres, as far as a savepoint needs it (its fields are internal in its types). */
interface NodePgTransactionLike {
  nestedIndex: number;
  dialect: unknown;
  session: { client: PipelinedClient };
  schema: unknown;
}
type NodePgTransactionClass = new (dialect: never, session: never, schema: undefined, nestedIndex?: number) => NodePgTransactionLike;

/**
 * Drizzle's node-postgres transaction whose nested transactions (a service's own `db.transaction()`
 * inside the request's) write SAVEPOINT and RELEASE SAVEPOINT without waiting for their answers: they
 * go out with the next statement instead of costing a round trip each. PostgreSQL runs a connection's
 * messages in order, so a savepoint that failed fails every statement after it (and COMMIT answers
 * ROLLBACK); its own error is the one thrown (`unanswered`, read by the runner). A rollback to the
 * savepoint (the nested body threw) is still waited for: the caller may go on after it.
 */
function pipelinedTransactionClass(
  driver: NodePgDriver,
  send: (client: PipelinedClient, text: string) => Promise<{ command: string }>,
  unanswered: WeakMap<PipelinedClient, Promise<unknown>[]>,
): NodePgTransactionClass {
  const Base = driver.NodePgTransaction as unknown as NodePgTransactionClass;
  const written = (client: PipelinedClient, text: string) => {
    const answer = send(client, text);
    unanswered.get(client)?.push(answer);
  };
  class PipelinedTransaction extends Base {
    async transaction<T>(body: (tx: PipelinedTransaction) => Promise<T>): Promise<T> {
      const name = `sp${this.nestedIndex + 1}`;
      const client = this.session.client;
      const tx = new PipelinedTransaction(this.dialect as never, this.session as never, this.schema as undefined, this.nestedIndex + 1);
      written(client, `savepoint ${name}`);
      try {
        const result = await body(tx);
        written(client, `release savepoint ${name}`);
        return result;
      } catch (error) {
        // Waited for: the caller may go on after it. Failing, the transaction is broken anyway (the
        // statements after it fail, COMMIT answers ROLLBACK); the body's error is the one to tell.
        await send(client, `rollback to savepoint ${name}`).catch(ignore);
        throw error;
      }
    }
  }
  return PipelinedTransaction;
}

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
  const unanswered = new WeakMap<PipelinedClient, Promise<unknown>[]>();
  const Pipelined = pipelinedTransactionClass(driver, send, unanswered);
  runners.set(db, async (body) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    const savepoints: Promise<unknown>[] = [];
    unanswered.set(client, savepoints);
    // Sent now, answered with the body's first statement; an error here fails that statement too.
    const begun = send(client, 'begin');
    try {
      const session = new driver.NodePgSession(client as never, dialect as never, undefined, { logger });
      const last = await body(new Pipelined(dialect as never, session as never, undefined) as unknown as Transaction);
      await begun;
      const query = last ? dialect.sqlToQuery(last) : undefined;
      // Both written before either answer is read: one round trip.
      const lastDone = query ? send(client, query.sql, query.params) : undefined;
      const committed = send(client, 'commit');
      // Answered before what follows them: a failed savepoint's own error, rather than the ones after it.
      await Promise.all(savepoints);
      if (lastDone) await lastDone;
      if ((await committed).command !== 'COMMIT') throw new TransactionRolledBack();
    } catch (error) {
      await send(client, 'rollback').catch((rollbackError: unknown) => {
        // The connection is gone: the pool must not hand it out again.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      unanswered.delete(client);
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
