// The Worker as `wrangler deploy` builds it, run in workerd through Miniflare.
//
// buildDeployBundle runs `wrangler deploy --dry-run --outdir`: the same esbuild bundle, with the same
// settings from wrangler.toml (minify included once it is set there), that a deploy uploads. The
// bindings (their names and kinds) come from wrangler.toml too, through wrangler's own reader
// (unstable_getMiniflareWorkerOptions), so a binding renamed in one place and not the other fails
// here; only what a deployment adds is set by the rehearsal: the secrets, and where the Hyperdrive
// binding connects (a transaction-mode pooler, as Hyperdrive is one).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import type { OutboundRouter } from './outbound';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(root, 'wrangler.toml');

export interface DeployBundle {
  dir: string;
  main: string;
  bytes: number;
}

export interface DeployBundleOptions {
  /** The wrangler configuration (default: the project's wrangler.toml, top-level environment). */
  config?: string;
  /** Force minification on or off (default: as the configuration says); off keeps names and esbuild's module comments, for a heap snapshot read by module. */
  minify?: boolean;
  /** More arguments for wrangler deploy (e.g. `--env=`). */
  extraArgs?: string[];
}

/**
 * `wrangler deploy --dry-run --outdir <tmp>`: the bundle a deploy would upload (by default the
 * project's: Hyperdrive, node-postgres). The rehearsal, the heap measurement and its budget test run it.
 */
export async function buildDeployBundle(options: DeployBundleOptions = {}): Promise<DeployBundle> {
  const dir = mkdtempSync(join(tmpdir(), 'brand-admin-deploy-bundle-'));
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const args = [wrangler, 'deploy', '--dry-run', '--outdir', dir, '--config', options.config ?? CONFIG];
  args.push(...(options.extraArgs ?? (options.config ? [] : ['--env='])));
  if (options.minify === false) args.push('--minify=false');
  else if (options.minify === true) args.push('--minify');
  await promisify(execFile)(process.execPath, args, {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 180_000,
  });
  const main = join(dir, readdirSync(dir).find((file) => file.endsWith('.js')) ?? 'index.js');
  if (!existsSync(main)) throw new Error(`wrangler deploy --dry-run wrote no script (found: ${readdirSync(dir).join(', ')})`);
  return { dir, main, bytes: statSync(main).size };
}

export interface RehearsalWorker {
  /** http://127.0.0.1:<port>: the Worker's HTTP entry, as Cloudflare's edge would call it. */
  url: string;
  mf: Miniflare;
  /** Runs the cron trigger (wrangler.toml [triggers]) once, as Cloudflare does every minute; resolves when it is done. */
  scheduled(): Promise<void>;
  /** Replaces the variables and secrets (a new deployment's configuration); the bundle stays. */
  setVariables(variables: Record<string, string>): Promise<void>;
  dispose(): Promise<void>;
}

export async function startRehearsalWorker(options: {
  bundle: DeployBundle;
  /** Secrets and extra variables (wrangler secret put); wrangler.toml's [vars] come first. */
  variables: Record<string, string>;
  /** Where each Hyperdrive binding of wrangler.toml connects. */
  hyperdriveUrl: string;
  outbound: OutboundRouter;
  /** Worker logs (console.*), line by line. */
  log?: (line: string) => void;
}): Promise<RehearsalWorker> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(CONFIG);
  const hyperdrives = Object.fromEntries(Object.keys(workerOptions.hyperdrives ?? {}).map((name) => [name, options.hyperdriveUrl]));
  const r2Buckets = Object.keys(workerOptions.r2Buckets ?? {});
  const make = (variables: Record<string, string>) => ({
    name: 'brand-admin-api',
    // The one module wrangler wrote, as is (its dynamic imports are node: built-ins workerd provides).
    modules: [{ type: 'ESModule', path: options.bundle.main }],
    modulesRoot: options.bundle.dir,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    bindings: { ...(workerOptions.bindings as Record<string, string>), ...variables },
    hyperdrives,
    r2Buckets,
    // The static assets (public/) under the ASSETS binding, with wrangler.toml's routing: the Worker
    // answers GET /api/v1/openapi.json from the document the build wrote there.
    assets: workerOptions.assets,
    outboundService: (request: Request) => options.outbound.handle(request),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      for (const stream of [stdout, stderr]) {
        let buffered = '';
        stream.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) if (line.trim()) options.log?.(line);
        });
      }
    },
  });
  const mf = new Miniflare(make(options.variables) as ConstructorParameters<typeof Miniflare>[0]);
  const origin = async () => (await mf.ready).toString().replace(/\/$/, '');
  let url = await origin();
  return {
    get url() {
      return url;
    },
    mf,
    async scheduled() {
      const worker = await mf.getWorker();
      const result = await worker.scheduled({ cron: '* * * * *', scheduledTime: new Date() });
      if (result.outcome !== 'ok') throw new Error(`scheduled handler ended with ${result.outcome}`);
    },
    async setVariables(variables) {
      await mf.setOptions(make(variables) as ConstructorParameters<typeof Miniflare>[0]);
      url = await origin();
    },
    dispose: () => mf.dispose(),
  };
}
