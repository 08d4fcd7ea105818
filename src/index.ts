import { createApp } from './app';
import type { Env } from './config';
import { workerServices } from './platform/services';

// Areas on demand: a cold isolate builds only the areas its requests reach (docs/architecture.md, "Startup").
const app = createApp(workerServices, { areasOnDemand: true });

export default {
  fetch: app.fetch,
  /** Cron trigger (wrangler.toml [triggers]): periodic sweeps such as request-log retention. */
  scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    // Imported on the first run, not at start: the sweeps' modules are no request's work.
    ctx.waitUntil(import('./scheduled').then(({ runScheduled }) => runScheduled(env)));
  },
} satisfies ExportedHandler<Env>;
