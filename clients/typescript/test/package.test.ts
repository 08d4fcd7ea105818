// The package as an integrator gets it: built (tsup), packed with `npm pack`, checked by
// @arethetypeswrong/cli, installed from the tarball into a temporary project outside the repository, and
// the README's first call run from plain Node ESM, CommonJS, TypeScript (node16 and bundler resolution,
// exactOptionalPropertyTypes on) and an esbuild bundle for workerd run in workerd (Miniflare), each
// against the test app over HTTP. The install reuses npm's cache (--prefer-offline: the repository's own
// install put openapi-fetch there); TypeScript, esbuild and Miniflare are the repository's.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app';
import { makeTenant } from '../../../test/helpers/factories';
import { makeOrder } from '../../../test/helpers/order-fixtures';
import { bin, npmIn, packAndInstall, root, sh } from './pack';
import { type Served, serveTestApp } from './serve';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Why workerd cannot run here (the workerd leg is then skipped with a message), or null when it can. */
function workerdProblem(): string | null {
  try {
    execFileSync(bin('workerd/bin/workerd'), ['--version'], { stdio: 'pipe', timeout: 15_000 });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}
const problem = workerdProblem();
if (problem) console.warn(`[package.test] the workerd leg is SKIPPED: workerd cannot run on this machine (${problem}).`);

const t = useTestApp();
let served: Served;
let project: string;
let env: NodeJS.ProcessEnv;
let expected: { total: number };

// The README's first call, and the two additions an integrator reaches for next: paginate and the error.
const FIRST_CALL_TS = `
import { BrandAdminError, createClient, unwrap } from '@brand-admin/client';

declare const process: { env: Record<string, string | undefined> };

export async function firstCall(baseUrl: string, apiKey: string | undefined) {
  const api = createClient({ baseUrl, apiKey });
  const { data, error, response } = await api.GET('/api/v1/orders', { params: { query: { page: 1, limit: 20 } } });
  if (error) throw new Error(\`\${response.status} \${error.code}: \${error.message}\`);
  let paged = 0;
  for await (const order of api.paginate('/api/v1/orders', { params: { query: { limit: 2 } } })) paged += order.id ? 1 : 0;
  let code = '';
  try {
    unwrap(await api.GET('/api/v1/orders/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }));
  } catch (e) {
    if (e instanceof BrandAdminError) code = \`\${e.code} \${e.requestId ? 'with' : 'without'} requestId\`;
  }
  return { total: data.pagination.total, first: data.data.length, paged, code };
}

export const fromEnv = () => firstCall(process.env.BASE_URL ?? '', process.env.BRAND_ADMIN_API_KEY);
`;

const FIRST_CALL_JS = (load: string) => `${load}
const api = createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.BRAND_ADMIN_API_KEY });
const main = async () => {
  const { data, error, response } = await api.GET('/api/v1/orders', { params: { query: { page: 1, limit: 20 } } });
  if (error) throw new Error(response.status + ' ' + error.code + ': ' + error.message);
  let paged = 0;
  for await (const order of api.paginate('/api/v1/orders', { params: { query: { limit: 2 } } })) paged += order.id ? 1 : 0;
  let code = '';
  try {
    unwrap(await api.GET('/api/v1/orders/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }));
  } catch (e) {
    if (e instanceof BrandAdminError) code = e.code + ' ' + (e.requestId ? 'with' : 'without') + ' requestId';
  }
  console.log(JSON.stringify({ total: data.pagination.total, first: data.data.length, paged, code }));
};
main().catch((e) => { console.error(e); process.exit(1); });
`;

const tsconfig = (options: Record<string, unknown>) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: [],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      ...options,
    },
  });

beforeAll(async () => {
  served = await serveTestApp(t);
  const tenant = await makeTenant(t.db);
  for (let i = 0; i < 3; i++) await makeOrder(t.db, tenant.clinic.id);
  expected = { total: 3 };
  env = { ...process.env, BASE_URL: served.baseUrl, BRAND_ADMIN_API_KEY: tenant.key };

  project = await packAndInstall([packageDir], 'brand-admin-client-');
}, 240_000);
afterAll(async () => {
  await served?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

const answer = () => ({ total: expected.total, first: expected.total, paged: expected.total, code: 'NOT_FOUND with requestId' });

describe('the published client package', () => {
  it('is clean under @arethetypeswrong/cli --pack (node10, node16 from CJS and ESM, bundler)', async () => {
    const { stdout } = await sh(process.execPath, [bin('@arethetypeswrong/cli/dist/index.js'), '--pack', '.', '--format', 'json'], {
      cwd: packageDir,
      env: { ...process.env, npm_config_ignore_scripts: 'true' },
    });
    const report = JSON.parse(stdout) as { analysis: { problems: unknown[] } };
    expect(report.analysis.problems).toEqual([]);
  }, 120_000);

  it('ships dist only, with ESM, CommonJS and both declarations per entry', async () => {
    const { stdout } = await npmIn(packageDir, ['pack', '--dry-run', '--json', '--ignore-scripts']);
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path).sort();
    for (const entry of ['index', 'schema', 'webhook-signature'])
      for (const ext of ['js', 'cjs', 'd.ts', 'd.cts']) expect(files).toContain(`dist/${entry}.${ext}`);
    expect(files).toEqual(expect.arrayContaining(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it('makes the first call from plain Node ESM', async () => {
    writeFileSync(join(project, 'esm.mjs'), FIRST_CALL_JS("import { BrandAdminError, createClient, unwrap } from '@brand-admin/client';"));
    const { stdout } = await sh(process.execPath, ['esm.mjs'], { cwd: project, env });
    expect(JSON.parse(stdout)).toEqual(answer());
  });

  it('makes the first call from CommonJS (require)', async () => {
    writeFileSync(
      join(project, 'cjs.cjs'),
      FIRST_CALL_JS("const { BrandAdminError, createClient, unwrap } = require('@brand-admin/client');"),
    );
    const { stdout } = await sh(process.execPath, ['cjs.cjs'], { cwd: project, env });
    expect(JSON.parse(stdout)).toEqual(answer());
  });

  it('compiles under TypeScript node16 with exactOptionalPropertyTypes, and the emitted ESM runs', async () => {
    writeFileSync(join(project, 'first-call.ts'), FIRST_CALL_TS);
    writeFileSync(join(project, 'main.ts'), "import { fromEnv } from './first-call.js';\nconsole.log(JSON.stringify(await fromEnv()));\n");
    writeFileSync(
      join(project, 'tsconfig.node16.json'),
      tsconfig({ module: 'node16', moduleResolution: 'node16', outDir: 'out-node16', rootDir: '.' }).replace(
        '}}',
        '},"files":["main.ts","first-call.ts"]}',
      ),
    );
    await sh(process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.node16.json', '--pretty', 'false'], { cwd: project });
    const { stdout } = await sh(process.execPath, ['out-node16/main.js'], { cwd: project, env });
    expect(JSON.parse(stdout)).toEqual(answer());
  }, 120_000);

  it.skipIf(problem !== null)(
    'compiles under TypeScript bundler resolution, and its esbuild bundle for workerd runs in workerd',
    async () => {
      writeFileSync(join(project, 'first-call.ts'), FIRST_CALL_TS);
      writeFileSync(
        join(project, 'worker.ts'),
        [
          "import { firstCall } from './first-call';",
          'export default {',
          '  async fetch(_request: Request, env: { BASE_URL: string; BRAND_ADMIN_API_KEY: string }): Promise<Response> {',
          '    return Response.json(await firstCall(env.BASE_URL, env.BRAND_ADMIN_API_KEY));',
          '  },',
          '};',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(project, 'tsconfig.bundler.json'),
        tsconfig({ module: 'esnext', moduleResolution: 'bundler', noEmit: true }).replace('}}', '},"files":["worker.ts"]}'),
      );
      await sh(process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.bundler.json', '--pretty', 'false'], { cwd: project });
      const { build } = await import('esbuild');
      await build({
        entryPoints: [join(project, 'worker.ts')],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        conditions: ['workerd', 'worker', 'browser'],
        target: 'es2022',
        outfile: join(project, 'worker.js'),
        logLevel: 'silent',
      });
      const { Miniflare } = createRequire(join(root, 'package.json'))('miniflare') as typeof import('miniflare');
      const mf = new Miniflare({
        modules: true,
        scriptPath: join(project, 'worker.js'),
        modulesRoot: project,
        cf: false,
        compatibilityDate: '2026-04-20',
        bindings: { BASE_URL: served.baseUrl, BRAND_ADMIN_API_KEY: env.BRAND_ADMIN_API_KEY as string },
      });
      try {
        const response = await mf.dispatchFetch('http://localhost/');
        expect(await response.json()).toEqual(answer());
      } finally {
        await mf.dispose();
      }
    },
    120_000,
  );
});
