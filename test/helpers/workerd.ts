import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Why workerd (the runtime wrangler and Miniflare start) cannot run here, or null when it can: suites that need it skip with this. */
export function workerdProblem(): string | null {
  try {
    execFileSync(join(root, 'node_modules', 'workerd', 'bin', 'workerd'), ['--version'], { stdio: 'pipe', timeout: 15_000 });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}
