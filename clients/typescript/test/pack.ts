// The workspace packages as an integrator gets them: built with tsup, packed with `npm pack` and installed
// from the tarballs into a temporary project outside the repository (package.test.ts of each package).
// The install reuses npm's cache (--prefer-offline: the repository's own install put the packages'
// dependencies there); the tarballs are installed together, so @brand-admin/cli finds the client it needs
// without a registry.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const root = fileURLToPath(new URL('../../..', import.meta.url));
/** A file of the repository's node_modules (its TypeScript, esbuild, tsup, Miniflare). */
export const bin = (path: string) => join(root, 'node_modules', path);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command; on failure the error names it with its output. */
export async function sh(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    return await run(file, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    const failure = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${failure.message}\n${failure.stdout ?? ''}\n${failure.stderr ?? ''}`);
  }
}

/** `npm` with arguments, in a folder. */
export const npmIn = (cwd: string, args: string[]) => sh(npm, args, { cwd });

/**
 * Builds each package (tsup), packs it without running prepack (it would build again) and installs all
 * the tarballs into a new temporary project; answers the project's folder.
 */
export async function packAndInstall(packageDirs: string[], prefix: string): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const tarballs: string[] = [];
  for (const dir of packageDirs) {
    await sh(process.execPath, [bin('tsup/dist/cli-default.js')], { cwd: dir });
    const before = new Set(readdirSync(project));
    await npmIn(dir, ['pack', '--ignore-scripts', '--pack-destination', project]);
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz') && !before.has(name));
    if (!tarball) throw new Error(`npm pack made no tarball in ${dir}`);
    tarballs.push(`./${tarball}`);
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
  await npmIn(project, ['install', ...tarballs, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
  return project;
}
