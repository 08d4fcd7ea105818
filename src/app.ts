import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { QSTASH_CALLBACK_PATH } from './env';
import type { AppEnv } from './platform/context';
import { onError, onNotFound, validationError } from './platform/http/error-handler';
import { devSimulatorOnly } from './platform/http/dev-simulator';
import { ApiError } from './platform/http/errors';
import { apiKeyGateway, ipGateway } from './platform/http/gateway';
import { docsPage, openApiDocument, registerSecuritySchemes } from './platform/http/openapi';
import { registerWebhookEvents } from './platform/webhooks/openapi';
import type { ServicesFactory } from './platform/services';
import { apiKeyRoutes } from './modules/api-keys/routes';
import { authRoutes } from './modules/auth/routes';
import { healthRoutes } from './modules/health/routes';
import { meRoutes } from './modules/me/routes';
import { couponRoutes } from './modules/coupons/routes';
import { priceAlertRoutes } from './modules/price-alerts/routes';
import { catalogRoutes } from './modules/catalog/routes';
import { productRoutes } from './modules/products/routes';
import { uploadRoutes } from './modules/uploads/routes';
import { tenantPriceRoutes } from './modules/tenant-prices/routes';
import { programCopilotRoutes } from './modules/program-copilot/routes';
import { programRoutes } from './modules/programs/routes';
import { payoutRoutes } from './modules/payouts/routes';
import { refundRoutes } from './modules/refunds/routes';
import { orderRoutes } from './modules/orders/routes';
import { customerRoutes } from './modules/customers/routes';
import { titrationScheduleRoutes } from './modules/titration-schedule/routes';
import { devSimulatorRoutes } from './modules/order-lifecycle/routes';
import { webhookRoutes } from './modules/webhooks/routes';
import { kickDeliveries } from './modules/webhook-deliveries/engine';
import { webhookDeliveryRoutes } from './modules/webhook-deliveries/routes';
import { checkoutRoutes } from './modules/checkout/routes';
import { contactRoutes } from './modules/contacts/routes';
import { tagRoutes } from './modules/tags/routes';
import { messageTemplateRoutes } from './modules/message-templates/routes';
import { sequenceRoutes } from './modules/sequences/routes';
import { affiliateRoutes } from './modules/affiliates/routes';
import { crmConnectionRoutes } from './modules/crm-connection/routes';
import { pageBuilderRoutes } from './modules/page-builder/routes';
import { customWebsiteRoutes } from './modules/custom-website/routes';
import { treatmentRoutes } from './modules/treatments/routes';
import { formRoutes } from './modules/forms/routes';
import { intakeRequestRoutes } from './modules/intake-requests/routes';
import { teleformRemovalRoutes } from './modules/teleform-removals/routes';
import { notificationRoutes } from './modules/notifications/routes';
import { dashboardRoutes } from './modules/dashboard/routes';
import { analyticsRoutes } from './modules/analytics/routes';
import { billingRoutes } from './modules/billing/routes';
import { onboardingRoutes } from './modules/onboarding/routes';
import { sandboxRoutes } from './modules/sandbox/routes';
import { organizationRoutes } from './modules/organization/routes';
import { teamRoutes } from './modules/team/routes';
import { supportRoutes } from './modules/support/routes';

/** Bodies above these sizes answer 413. Upload routes may set tighter limits of their own. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
export const MAX_MULTIPART_BODY_BYTES = 10 * 1024 * 1024;

/** Every API area, mounted in one place. New areas add one line here. */
const modules = [
  healthRoutes,
  authRoutes,
  apiKeyRoutes,
  meRoutes,
  couponRoutes,
  priceAlertRoutes,
  catalogRoutes,
  productRoutes,
  uploadRoutes,
  tenantPriceRoutes,
  programCopilotRoutes,
  programRoutes,
  orderRoutes,
  customerRoutes,
  titrationScheduleRoutes,
  devSimulatorRoutes,
  webhookRoutes,
  webhookDeliveryRoutes,
  checkoutRoutes,
  payoutRoutes,
  refundRoutes,
  contactRoutes,
  tagRoutes,
  messageTemplateRoutes,
  sequenceRoutes,
  affiliateRoutes,
  crmConnectionRoutes,
  pageBuilderRoutes,
  customWebsiteRoutes,
  treatmentRoutes,
  formRoutes,
  intakeRequestRoutes,
  teleformRemovalRoutes,
  notificationRoutes,
  dashboardRoutes,
  analyticsRoutes,
  billingRoutes,
  onboardingRoutes,
  sandboxRoutes,
  organizationRoutes,
  teamRoutes,
  supportRoutes,
];

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

export function createApp(servicesFor: ServicesFactory) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });

  app.use('*', async (c, next) => {
    const requestId = crypto.randomUUID();
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    const { services, finish } = await servicesFor(c);
    c.set('services', services);
    try {
      await next();
      // Events recorded by this request go out now rather than at the next cron run (after the answer).
      if (c.get('eventsRecorded') && c.res.status < 400) kickDeliveries(services);
    } finally {
      finish();
    }
  });
  // Credentials and rate limits first, so a 413 carries the RateLimit-* headers like any answer.
  // QStash's callback is authenticated by its signature and must not share the per-address limit of
  // root routes (QStash calls from a few addresses, as fast as deliveries are due).
  app.use('*', (c, next) => (isApiPath(c.req.path) ? apiKeyGateway(c, next) : c.req.path === QSTASH_CALLBACK_PATH ? next() : ipGateway(c, next)));
  // The development simulator exists only with DEV_SIMULATOR="true" (its routes are in their areas).
  app.use('/_dev/*', devSimulatorOnly);
  app.use('/api/v1/_dev/*', devSimulatorOnly);
  app.use('*', (c, next) => {
    const multipart = (c.req.header('content-type') ?? '').startsWith('multipart/form-data');
    const maxSize = multipart ? MAX_MULTIPART_BODY_BYTES : MAX_JSON_BODY_BYTES;
    return bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${maxSize} bytes`);
      },
    })(c, next);
  });

  registerSecuritySchemes(app);
  registerWebhookEvents(app);
  for (const module of modules) app.route('/', module);
  app.get('/api/v1/openapi.json', (c) => c.json(openApiDocument(app)));
  app.get('/docs', docsPage);

  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}

export type App = ReturnType<typeof createApp>;

export { routeTable } from './platform/http/route-table';
