import { describeError, logLine } from './log';

/**
 * Work started during a request that must finish after the response (request logs, limiter sync).
 * `settled()` waits for everything added so far, including work added while waiting.
 */
export class BackgroundTasks {
  private readonly tasks: Promise<unknown>[] = [];

  add = (work: Promise<unknown>): void => {
    this.tasks.push(work.catch((error) => logLine('error', 'background task failed', { error: describeError(error) })));
  };

  async settled(): Promise<void> {
    let seen = 0;
    while (seen < this.tasks.length) {
      const batch = this.tasks.slice(seen);
      seen = this.tasks.length;
      await Promise.all(batch);
    }
  }
}
