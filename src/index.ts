import { createApp } from './app';
import type { Env } from './env';
import { workerServices } from './platform/services';

const app = createApp(workerServices);

export default {
  fetch: app.fetch,
  /** Cron sweeps (webhook retries, sandbox expiry, sequences) are registered here by later areas. */
  async scheduled(_controller: ScheduledController, _env: Env, _ctx: ExecutionContext): Promise<void> {},
} satisfies ExportedHandler<Env>;
