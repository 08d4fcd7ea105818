/**
 * A counting semaphore over the database connections one isolate holds at once. Every request opens
 * its own connection (workerd ties sockets to the request that made them), so without a cap a burst
 * opens as many connections as there are requests and PostgreSQL answers "too many clients". With
 * it, a burst queues here, first come first served; a request that waits longer than `waitMs` fails
 * with a connection error (SQLSTATE 08001), which the error handler answers as 503 with Retry-After.
 *
 * Waiters poll on their own timers instead of being woken by the request that frees a slot: in
 * workerd a promise resolved by another request runs its continuation in THAT request's context, and
 * the waiter's connect would then fail with "Cannot perform I/O on behalf of a different request".
 */
export class ConnectionGate {
  private active = 0;
  private readonly waiting: object[] = [];

  constructor(readonly max: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once a connection may be opened. */
  async acquire(waitMs: number): Promise<() => void> {
    if (this.active < this.max && this.waiting.length === 0) {
      this.active++;
      return this.releaser();
    }
    const ticket = {};
    this.waiting.push(ticket);
    const deadline = Date.now() + waitMs;
    let pause = 1;
    try {
      // A slot goes to the longest-waiting requests first: ticket i may go once i slots are free.
      while (this.waiting.indexOf(ticket) >= this.max - this.active) {
        if (Date.now() >= deadline) throw new ConnectionGateTimeout(waitMs);
        await sleep(pause);
        pause = Math.min(pause * 2, 25);
      }
    } finally {
      this.waiting.splice(this.waiting.indexOf(ticket), 1);
    }
    this.active++;
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** No connection slot freed up in time: the isolate is saturated. Class 08 so it maps to 503. */
export class ConnectionGateTimeout extends Error {
  readonly code = '08001';
  constructor(waitMs: number) {
    super(`No database connection became free within ${waitMs} ms`);
    this.name = 'ConnectionGateTimeout';
  }
}
