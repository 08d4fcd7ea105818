import { createApp } from './app';
import type { Env } from './config';
import { workerServices } from './platform/services';
import { runScheduled } from './scheduled';

const app = createApp(workerServices);

export default {
  fetch: app.fetch,
  /** Cron trigger (wrangler.toml [triggers]): periodic sweeps such as request-log retention. */
  scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    ctx.waitUntil(runScheduled(env));
  },
} satisfies ExportedHandler<Env>;
