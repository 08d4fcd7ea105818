// The production rehearsal (docs/rehearsal.md): the deploy bundle in workerd with
// ENVIRONMENT=production and every production secret, every provider a local stand-in, a brand's day
// end to end, the faults, and the startup refusals. `npm run rehearse` prints the steps;
// test/integration/rehearsal.test.ts runs the same thing in `npm test`.
import { type RehearsalReport, runScenario } from './scenario';
import { type Stack, type StackOptions, startStack } from './stack';

export { runScenario } from './scenario';
export { startStack } from './stack';

export interface StartupRefusal {
  setting: string;
  status: number;
  message: string;
}

/**
 * Development defaults refused: the same bundle restarted with one stray development setting answers
 * every request 500 and logs the ConfigError naming it (the configuration is read on the first request).
 */
export async function checkStartupRefusals(stack: Stack): Promise<StartupRefusal[]> {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['DEV_SIMULATOR', { DEV_SIMULATOR: 'true' }, /DEV_SIMULATOR is a development-only switch/],
    [
      'JWT_SECRET (the development secret)',
      { JWT_SECRET: 'development-only-jwt-secret-change-me' },
      /JWT_SECRET is the development secret/,
    ],
  ];
  const refusals: StartupRefusal[] = [];
  try {
    for (const [setting, change, expected] of cases) {
      const logged = stack.logs.length;
      await stack.worker.setVariables({ ...stack.variables, ...change });
      const res = await fetch(`${stack.worker.url}/healthz`, { headers: { 'cf-connecting-ip': '203.0.113.9' } });
      const text = await res.text();
      // The log line may trail the answer by a moment.
      for (let i = 0; i < 40 && !stack.logs.slice(logged).some((line) => expected.test(line)); i++)
        await new Promise((r) => setTimeout(r, 50));
      const line = stack.logs.slice(logged).find((l) => expected.test(l));
      if (res.status !== 503 || !line) {
        throw new Error(
          `rehearsal: ${setting} was not refused at startup (status ${res.status}, body ${text.slice(0, 200)}, log ${line ?? 'none'})`,
        );
      }
      if (expected.test(text)) throw new Error(`rehearsal: the answer to a misconfigured Worker leaks the configuration error: ${text}`);
      refusals.push({ setting, status: res.status, message: line.slice(line.search(expected)).slice(0, 200) });
    }
  } finally {
    await stack.worker.setVariables(stack.variables);
  }
  return refusals;
}

export interface RehearsalRun extends RehearsalReport {
  bundleBytes: number;
  pooled: boolean;
  refusals: StartupRefusal[];
  seconds: number;
}

export async function rehearse(options: StackOptions & { log?: (line: string) => void } = {}): Promise<RehearsalRun> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const stack = await startStack(options);
  try {
    log(
      `Worker ${stack.worker.url} (deploy bundle ${(stack.bundle.bytes / 1024).toFixed(0)} KiB), database through ${stack.pooled ? 'PgBouncer (transaction mode)' : 'a direct connection'}`,
    );
    const report = await runScenario(stack, log);
    const refusals = await checkStartupRefusals(stack);
    for (const r of refusals) log(`  ✓ ${r.setting} refused: ${r.status}, logged "${r.message.slice(0, 120)}"`);
    return { ...report, bundleBytes: stack.bundle.bytes, pooled: stack.pooled, refusals, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    const tail = stack.logs.slice(-30).join('\n');
    if (tail) log(`Last Worker log lines:\n${tail}`);
    throw error;
  } finally {
    await stack.stop();
  }
}

/**
 * Miniflare's local Hyperdrive proxy (a Node TCP server that pipes workerd's sockets to the database)
 * attaches no 'error' listener to its sockets, so a socket workerd closes abruptly at the end of a
 * request (ECONNRESET) would crash this process. That proxy is local tooling only (production's
 * Hyperdrive is Cloudflare's), so such resets are counted and ignored here; any other uncaught error
 * still ends the run. This is why the test runs the rehearsal in a child process of its own.
 */
export function toleratePoolerProxyResets(): { count(): number } {
  let resets = 0;
  process.on('uncaughtException', (error: NodeJS.ErrnoException) => {
    if ((error.code === 'ECONNRESET' || error.code === 'EPIPE') && (error.syscall === 'read' || error.syscall === 'write')) {
      resets++;
      return;
    }
    console.error(error);
    process.exit(1);
  });
  return { count: () => resets };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const verbose = process.argv.includes('--verbose');
  const json = process.argv.includes('--json');
  const resets = toleratePoolerProxyResets();
  // The test passes its own PostgreSQL server and migrated template (saves starting and migrating one).
  const serverUrl = process.env.REHEARSAL_POSTGRES_URL;
  rehearse({
    ...(serverUrl ? { server: { url: serverUrl, template: process.env.REHEARSAL_TEMPLATE } } : {}),
    log: (line) => {
      if (verbose || !line.startsWith('[worker]')) console.log(line);
    },
  }).then(
    (run) => {
      console.log(
        `Rehearsal passed in ${run.seconds.toFixed(1)} s: ${run.steps.length} steps, ${run.apiCalls} API calls checked against the OpenAPI document, ${run.webhooksVerified} webhooks verified.`,
      );
      console.log(`Outbound calls by host: ${JSON.stringify(run.outboundCalls)}`);
      if (run.platformEventLatency) {
        const l = run.platformEventLatency;
        console.log(
          `Platform event → receiver (entry point, QStash stand-in, no cron): p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms over ${l.samples} events`,
        );
      }
      console.log(`Local Hyperdrive proxy socket resets ignored: ${resets.count()}`);
      if (json) console.log(`REHEARSAL_REPORT ${JSON.stringify({ ...run, proxyResets: resets.count() })}`);
      // Everything was stopped; a socket some library keeps open must not hold the process.
      process.exit(0);
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
