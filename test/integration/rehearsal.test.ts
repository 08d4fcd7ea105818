// The production rehearsal (`npm run rehearse`, scripts/rehearse/, docs/rehearsal.md):
// the Worker built as `wrangler deploy` builds it, in workerd with ENVIRONMENT=production and every
// production secret, each provider a local stand-in, a brand's day through the public API (every
// answer checked against the deployed OpenAPI document), the faults (QStash down, Upstash hanging, a
// receiver answering 500) and the startup refusals of development settings. It runs in a child
// process (see toleratePoolerProxyResets in scripts/rehearse/index.ts) on this run's PostgreSQL
// server, and passes only when the child reports every step. About 60 s on a 2-core machine.
// Skipped, with a message, only when workerd or redis-server cannot run here.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function missing(): string | null {
  try {
    execFileSync(join(root, 'node_modules', 'workerd', 'bin', 'workerd'), ['--version'], { stdio: 'pipe', timeout: 15_000 });
  } catch (error) {
    return `workerd cannot run (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'pipe', timeout: 5_000 });
  } catch {
    return 'redis-server is not installed (the Upstash stand-in runs on a real Redis)';
  }
  return null;
}

const problem = missing();
if (problem) console.warn(`[rehearsal.test] SKIPPED: ${problem}.`);

interface Report {
  steps: string[];
  apiCalls: number;
  webhooksVerified: number;
  outboundCalls: Record<string, number>;
  refusals: { setting: string; status: number }[];
  pooled: boolean;
  seconds: number;
}

describe.skipIf(problem !== null)('production rehearsal (npm run rehearse)', () => {
  it('the deploy bundle, configured as production, runs a brand’s day and its faults against the stand-ins', {
    timeout: 240_000,
  }, async () => {
    const database = inject('testDatabase');
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (database.embedded) {
      env.REHEARSAL_POSTGRES_URL = database.serverUrl;
      env.REHEARSAL_TEMPLATE = database.template;
    }
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'rehearse', 'index.ts'), '--json'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    // A hung run is stopped (and its output shown) well before the test's own timeout.
    const timer = setTimeout(() => child.kill('SIGTERM'), 180_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    expect(code, output.slice(-4000)).toBe(0);
    const line = output.split('\n').find((l) => l.startsWith('REHEARSAL_REPORT '));
    expect(line, output.slice(-2000)).toBeDefined();
    const report = JSON.parse(line!.slice('REHEARSAL_REPORT '.length)) as Report;
    console.log(`[rehearsal.test] ${report.steps.length} steps in ${report.seconds.toFixed(1)} s, ${report.apiCalls} API calls`);

    expect(report.steps.length).toBe(19);
    expect(report.apiCalls).toBeGreaterThan(40);
    expect(report.webhooksVerified).toBeGreaterThanOrEqual(15);
    expect(report.refusals.map((r) => [r.setting, r.status])).toEqual([
      ['DEV_SIMULATOR', 503],
      ['JWT_SECRET (the development secret)', 503],
    ]);
    // Every provider was reached at its production host, through its stand-in.
    for (const host of [
      'api.stripe.com',
      'api.resend.com',
      'api.twilio.com',
      'api.cloudflare.com',
      'qstash.upstash.io',
      'cloudflare-dns.com',
    ]) {
      expect(report.outboundCalls[host], host).toBeGreaterThan(0);
    }
    expect(report.outboundCalls['hooks-down.rehearsal-brand.example']).toBe(10);
  });
});
