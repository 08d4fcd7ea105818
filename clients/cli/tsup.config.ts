// The published build (npm run build here): one ESM file per entry for Node 20+. bin.js is what
// `npx @brand-admin/cli` runs (tsup keeps its shebang and makes it executable); index.js the same
// commands as functions. @brand-admin/client stays a dependency (not bundled).
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { bin: 'src/bin.ts', index: 'src/index.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  clean: true,
  splitting: false,
  outDir: 'dist',
});
