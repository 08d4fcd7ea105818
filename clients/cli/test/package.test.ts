// @brand-admin/cli as an integrator gets it: the client and the CLI built, packed with `npm pack` and
// installed together from their tarballs into a temporary project outside the repository; then the
// installed `brand-admin` command (node_modules/.bin, what `npx @brand-admin/cli` runs) against the test
// app over HTTP: its usage, `trigger` to a local receiver, and `listen` until Ctrl-C (SIGINT).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../../drizzle/schema';
import { insertSigningSecret } from '../../../src/modules/webhooks-checkout/webhooks/secrets';
import { recordOutboxEvent } from '../../../src/platform/events/outbox';
import { buildTestApp, type TestApp, useTestApp } from '../../../test/helpers/app';
import { makeTenant } from '../../../test/helpers/factories';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/tooling/webhook-receiver';
import { npmIn, packAndInstall } from '../../typescript/test/pack';
import { type Served, serveTestApp } from '../../typescript/test/serve';

const cliDir = fileURLToPath(new URL('..', import.meta.url));
const clientDir = fileURLToPath(new URL('../../typescript', import.meta.url));

const t = useTestApp();
let dev: TestApp;
let served: Served;
let receiver: WebhookReceiver;
let project: string;

beforeAll(async () => {
  dev = buildTestApp(t.db, t.databaseUrl);
  dev.config.webhookAllowInsecureLocalhost = true; // the receiver is on 127.0.0.1
  served = await serveTestApp(dev);
  receiver = await startWebhookReceiver();
  project = await packAndInstall([clientDir, cliDir], 'brand-admin-cli-');
}, 240_000);
afterAll(async () => {
  await receiver?.close();
  await served?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

/** The installed command as a process, its output collected. */
function brandAdmin(args: string[], env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(join(project, 'node_modules', '.bin', 'brand-admin'), args, {
    cwd: project,
    env: { ...process.env, ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

async function until(condition: () => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the published CLI package', () => {
  it('ships dist/bin.js with its shebang, and the README, changelog and license', async () => {
    const { stdout } = await npmIn(cliDir, ['pack', '--dry-run', '--json', '--ignore-scripts']);
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path).sort();
    expect(files).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'dist/bin.js', 'package.json']);
    const installed = join(project, 'node_modules', '@brand-admin', 'cli', 'dist', 'bin.js');
    expect(readFileSync(installed, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('prints its usage and exits 0 with --help; 2 with no command', async () => {
    const help = brandAdmin(['--help'], {});
    expect(await help.exited).toBe(0);
    expect(help.output.stdout).toMatch(/^Usage: brand-admin <command>/);
    const none = brandAdmin([], {});
    expect(await none.exited).toBe(2);
  });

  it('trigger: sends a test event to the clinic’s endpoint and prints the outcome', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({ clinicId: clinic.id, url: receiver.url, events: ['order.created'] })
      .returning();
    await insertSigningSecret(t.db, clinic.id, endpoint!.id, t.config.secretKeys, new Date());
    const received = receiver.received.length;
    const run = brandAdmin(['trigger', 'order.created', '--endpoint', endpoint!.id], {
      BRAND_ADMIN_API_KEY: key,
      BRAND_ADMIN_BASE_URL: served.baseUrl,
    });
    expect(await run.exited, run.output.stderr).toBe(0);
    expect(run.output.stdout).toMatch(new RegExp(`^order.created test delivery \\S+ to endpoint ${endpoint!.id}: succeeded \\[200\\]\\n$`));
    const got = receiver.received.slice(received);
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.rawBody)).toMatchObject({ type: 'order.created', test: true });
  });

  it('listen: forwards a new event until Ctrl-C (SIGINT), then exits 0', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const received = receiver.received.length;
    const run = brandAdmin(['listen', '--forward-to', receiver.url, '--interval', '100'], {
      BRAND_ADMIN_API_KEY: key,
      BRAND_ADMIN_BASE_URL: served.baseUrl,
    });
    try {
      await until(() => run.output.stdout.includes('Ready!'));
      const id = await recordOutboxEvent(t.db, clinic.id, 'order.shipped', { orderId: crypto.randomUUID() });
      await until(() => run.output.stdout.includes(id));
      run.child.kill('SIGINT');
      expect(await run.exited, run.output.stderr).toBe(0);
      expect(receiver.received.slice(received).map((r) => r.headers['webhook-id'])).toEqual([id]);
      expect(run.output.stdout).toMatch(new RegExp(`order\\.shipped +${id}  --> POST ${receiver.url} \\[200\\]`));
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
