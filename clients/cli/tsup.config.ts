// The published build (npm run build here): dist/bin.js, one ESM file for Node 20+, what
// `npx @brand-admin/cli` runs (tsup keeps its shebang and makes it executable). @brand-admin/client
// stays a dependency (not bundled). The package is a command, not a library: src/index.ts (the commands
// as functions) is for this repository's tests.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { bin: 'src/bin.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  clean: true,
  splitting: false,
  outDir: 'dist',
});
