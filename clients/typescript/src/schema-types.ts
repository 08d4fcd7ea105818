// The `@brand-admin/client/schema` entry: the generated types alone (paths, components, operations,
// webhooks), for code that builds its own calls on them. No runtime code.
export type * from './schema';
