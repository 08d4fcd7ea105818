import { fileURLToPath } from 'node:url';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // For the workers project. pg is CommonJS, and inside workerd every require() it makes is answered by
  // the pool's module-fallback service, which resolves with the ROOT Vite server's resolver (so a
  // project-level alias is ignored, and the workerd condition is missing): pg-protocol resolves to its
  // ESM wrapper esm/index.js (a .js file in a non-module package, loaded as CommonJS: "Cannot use import
  // statement outside a module") and pg-cloudflare to its non-workerd stub dist/empty.js
  // ("CloudflareSocket is not a constructor"). Point both bare names at their CommonJS builds. The node
  // project leaves pg to Node's own require(), so this changes nothing there.
  resolve: {
    alias: [
      { find: /^pg-protocol$/, replacement: fromRoot('./node_modules/pg-protocol/dist/index.js') },
      { find: /^pg-cloudflare$/, replacement: fromRoot('./node_modules/pg-cloudflare/dist/index.js') },
    ],
  },
  test: {
    // Two files at a time, also on a 2-core machine (vitest's default there is one: CPUs - 1). Files
    // wait on PostgreSQL, wrangler and Chromium much of their time, and each has its own database, so
    // the second file fills that time.
    maxWorkers: 2,
    projects: [
      {
        // The workspace client by name from its sources, as tsconfig.json's paths say (its exports name
        // dist/, built only for publishing): clients/cli imports it as an integrator does.
        resolve: {
          alias: [
            { find: /^@brand-admin\/client$/, replacement: fromRoot('./clients/typescript/src/index.ts') },
            { find: /^@brand-admin\/client\/webhook-signature$/, replacement: fromRoot('./clients/typescript/src/webhook-signature.ts') },
          ],
        },
        test: {
          name: 'node',
          // The TypeScript client's tests (clients/typescript/test) run here too, with the same database.
          include: ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'],
          // *.workers.test.ts: a file of a suite (test/faults) that runs inside workerd, in the project below.
          exclude: ['test/workers/**', '**/*.workers.test.ts'],
          // The files of a worker share one module graph (the app's modules are evaluated once per
          // worker, not once per file: that import was about a third of the suite's time). This holds
          // because a file keeps its state in what it creates (its own database, app, stand-ins and
          // servers); what src keeps at module level is memoised from its inputs (crypto keys, clients,
          // parsed URLs) or keyed by ids a file makes itself (the in-memory upload store, Upstash's
          // refused-identifier cache); and no file mocks a module (vi.mock) or leaves a global changed.
          // Both together: `npm test` in 321 s instead of 600-720 s (2026-11-24, this 2-core machine).
          isolate: false,
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/helpers/load-areas.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The real Worker (src/index.ts via wrangler.toml) inside workerd, against a real PostgreSQL.
        plugins: [
          // Called once the project's global setup has run, so inject() sees what it provided.
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' }, // main = src/index.ts, compat date and flags
            miniflare: {
              // Override wrangler.toml's [vars]; secrets would come from `wrangler secret put`.
              // The Worker reaches the database through the Hyperdrive binding, as in production.
              hyperdrives: { HYPERDRIVE: inject('workersDatabase').url },
              bindings: {
                DATABASE_URL: inject('workersDatabase').url,
                ENVIRONMENT: 'test',
                JWT_SECRET: 'workers-test-jwt-secret',
              },
            },
          })),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts', 'test/**/*.workers.test.ts'],
          // One file at a time: the files share one database and count its connections (worker.test.ts).
          fileParallelism: false,
          // Its own PostgreSQL (data folder and database named apart from the node project's).
          globalSetup: ['test/workers/global-setup.ts'],
          setupFiles: ['test/helpers/load-areas.ts'],
          // The first request loads pg, Drizzle and Hono through the module-fallback service (~6 s).
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
