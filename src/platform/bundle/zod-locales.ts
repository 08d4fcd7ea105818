/**
 * What the Worker bundle gets for zod's `../locales/index.js` (wrangler.toml [alias]): English only.
 *
 * zod's namespace `z` re-exports every locale (`z.locales`, `z.core.locales`), and @hono/zod-openapi
 * hands `z` itself to `extendZodWithOpenApi(z)`, so a bundler must keep the whole namespace: 46
 * translations of the validation messages, 261 KiB of the 460 KiB zod adds to the minified Worker.
 * This API answers in English only (zod registers `en` itself on the first schema it builds, from
 * `./en.js`, not through this index), and nothing here calls `z.config(z.locales.xx())`, so the
 * Worker behaves the same without the others. Tests under Node and the workers pool load zod unaliased.
 */
export { default as en } from 'zod/v4/locales/en.js';
