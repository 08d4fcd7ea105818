// Run by startup-budget.test.ts in a Node process of its own (a fresh module graph): imports the Worker's
// entry as workerd does at start and prints what that built, counted rather than timed.
import { SmartRouter } from 'hono/router/smart-router';

const counts = { zodObjects: 0, routeHandlers: 0 };
// zod installs `_zod` on every schema and check it constructs (zod/v4/core/core.js, $constructor).
const defineProperty = Object.defineProperty;
Object.defineProperty = <T>(target: T, key: PropertyKey, attributes: PropertyDescriptor & ThisType<unknown>): T => {
  if (key === '_zod') counts.zodObjects++;
  return defineProperty(target, key, attributes);
};
// Every Hono app (OpenAPIHono included) registers each handler through its SmartRouter.
const add = SmartRouter.prototype.add;
SmartRouter.prototype.add = function (this: SmartRouter<unknown>, ...args: Parameters<typeof add>) {
  counts.routeHandlers++;
  return add.apply(this, args);
};

await import(process.argv[2] ?? '../../src/index');
console.log(JSON.stringify(counts));
