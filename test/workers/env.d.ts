// Types for `import { env, exports } from 'cloudflare:workers'` in the workers project: the Worker's
// bindings are the app's Env, and ctx.exports / exports.default is src/index.ts's default export.
import type { Env as AppBindings } from '../../src/config';

declare global {
  namespace Cloudflare {
    interface Env extends AppBindings {}
    interface GlobalProps {
      mainModule: typeof import('../../src/index');
    }
  }
}
