// Every area's routes, loaded before any test file creates an app: tests (and their route-table walkers)
// use createApp with every area mounted, as scripts do after `await loadAreas()`. The Worker mounts them on
// demand instead (src/areas.ts); test/api/platform/routes-on-demand.test.ts compares the two.
import { loadAreas } from '../../src/app';

await loadAreas();
