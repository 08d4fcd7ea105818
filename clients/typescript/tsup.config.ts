// The published build (npm run build here, or `npm run client:build` at the root): ESM (.js) and CommonJS
// (.cjs) with their declarations (.d.ts, .d.cts), one file per entry, for Node 20+, Workers, Deno, Bun and
// browsers. openapi-fetch stays a dependency (not bundled). test/package.test.ts packs and installs it.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'webhook-signature': 'src/webhook-signature.ts',
    schema: 'src/schema-types.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: false,
  clean: true,
  splitting: false,
  treeshake: true,
  outDir: 'dist',
});
