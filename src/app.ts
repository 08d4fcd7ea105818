import { OpenAPIHono } from '@hono/zod-openapi';
import { loadAreas, loadedArea, mountAreas } from './areas';
import { QSTASH_CALLBACK_PATH } from './config';
// The one piece of an area that every API request runs, imported from its module rather than the area's
// index.ts, which would build the area's services (and the foundation areas under them) at start.
import { applyCheckoutCors } from './modules/webhooks-checkout/checkout/cors';
import type { AppEnv } from './platform/context';
import { trackOutboxWrites } from './platform/events/outbox';
import { recordPatientReads } from './platform/http/audit';
import { requestBodyLimit } from './platform/http/body-limit';
import { devSimulatorOnly } from './platform/http/dev-simulator';
import { onError, onNotFound, validationError } from './platform/http/error-handler';
import { apiKeyGateway, ipGateway } from './platform/http/gateway';
import { PLATFORM_REQUEST_PREFIX } from './platform/http/platform-request';
import { clientRequestIdFrom, newRequestId, REQUEST_ID_HEADER } from './platform/http/request-id';
import { noSniff } from './platform/http/security-headers';
import { onlyQueryParams } from './platform/http/strict-query';
import { openApiAsset } from './platform/openapi/asset';
import { docsPage } from './platform/openapi/docs-page';
import { registerForDocument } from './platform/openapi/document-only';
import type { ServicesFactory } from './platform/services';

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');
const isSignedInternalPath = (path: string) => path === QSTASH_CALLBACK_PATH || path.startsWith(PLATFORM_REQUEST_PREFIX);

export interface AppOptions {
  /**
   * Mount each area on its first request (the Worker: src/index.ts) rather than now, which needs
   * `await loadAreas()` first (Node: tests and scripts walk the whole route table). docs/architecture.md, "Startup".
   */
  areasOnDemand?: boolean;
}

export function createApp(servicesFor: ServicesFactory, { areasOnDemand = false }: AppOptions = {}) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });

  app.use('*', noSniff);
  app.use('*', async (c, next) => {
    // Ours, on every answer; the client's own X-Request-Id is data the request log keeps beside it.
    const requestId = newRequestId();
    c.set('requestId', requestId);
    c.set('clientRequestId', clientRequestIdFrom(c.req.header(REQUEST_ID_HEADER)));
    c.header(REQUEST_ID_HEADER, requestId);
    const { services, finish } = await servicesFor(c);
    c.set('services', services);
    try {
      // Whatever writes an outbox event marks the request (src/platform/events/outbox.ts): the events it
      // recorded go out right after the answer rather than at the next cron run. Any status: an event
      // committed before a later failure is as real as any other, and a kick with nothing due costs a query.
      const { written } = await trackOutboxWrites(() => next());
      if (written) (await import('./modules/webhooks-checkout')).kickDeliveries(services);
      // Patient-data reads of an answer that goes out are audited after it (docs/audit-log.md).
      recordPatientReads(c, services);
    } finally {
      finish();
    }
  });
  // Credentials and rate limits first, so a 413 carries the RateLimit-* headers like any answer.
  // QStash's callback and the platform's entry point are authenticated by their signatures and must not
  // share the per-address limit of root routes (both call from a few addresses, as fast as work comes).
  app.use('*', (c, next) => {
    if (!isApiPath(c.req.path)) return isSignedInternalPath(c.req.path) ? next() : ipGateway(c, next);
    // Browsers create checkout sessions (docs/checkout.md, "CORS"): the CORS headers are set before the
    // gateway, so every answer of that route carries them (401 and 429 included), and its preflight, an
    // OPTIONS that by the rules of CORS carries no x-api-key, passes without a key, limited per address.
    if (applyCheckoutCors(c).preflight) return ipGateway(c, next);
    return apiKeyGateway(c, next);
  });
  // The development simulator exists only with DEV_SIMULATOR="true" (its routes are in their areas).
  app.use('/_dev/*', devSimulatorOnly);
  app.use('/api/v1/_dev/*', devSimulatorOnly);
  // Routes declared with defineRoute refuse undeclared query parameters themselves; the few plain
  // routes (the simulator, QStash's callback, the document and /docs) take none.
  const noQueryParams = onlyQueryParams([]);
  for (const path of ['/_dev/*', '/api/v1/_dev/*', QSTASH_CALLBACK_PATH, '/api/v1/openapi.json', '/docs']) app.use(path, noQueryParams);
  app.use('*', requestBodyLimit);

  // A wrangler build serves the document built with it (wrangler.toml [define] __OPENAPI_FROM_ASSETS__):
  // the constant folds and the bundler drops the generator path. Node (tests, scripts) and the workers
  // tests generate it in-process, once per app; test/architecture/worker-bundle.test.ts checks both agree.
  // (Each test spells the constant out: esbuild folds a define where it is written, not through a variable.)
  if (typeof __OPENAPI_FROM_ASSETS__ === 'undefined' || !__OPENAPI_FROM_ASSETS__)
    registerForDocument(app, (document) => loadedArea('webhooks-checkout').registerWebhookEvents(document));
  mountAreas(app, areasOnDemand);
  // The document of an app with areas on demand is that of the same app with every area loaded.
  let documentApp: Promise<OpenAPIHono<AppEnv>> | undefined;
  app.get('/api/v1/openapi.json', async (c) => {
    if (typeof __OPENAPI_FROM_ASSETS__ === 'undefined' || !__OPENAPI_FROM_ASSETS__) {
      const { openApiDocument } = await import('./platform/openapi/document');
      documentApp ??= areasOnDemand ? loadAreas().then(() => createApp(servicesFor)) : Promise.resolve(app);
      return c.json(openApiDocument(await documentApp));
    }
    return openApiAsset(c);
  });
  app.get('/docs', docsPage);

  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}

export type App = ReturnType<typeof createApp>;

export { loadAreas } from './areas';
export { routeTable } from './platform/http/route-table';
