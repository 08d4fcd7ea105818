import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { QSTASH_CALLBACK_PATH } from './config/index';
import type { AppEnv } from './platform/context';
import { onError, onNotFound, validationError } from './platform/http/error-handler';
import { devSimulatorOnly } from './platform/http/dev-simulator';
import { ApiError } from './platform/http/errors';
import { apiKeyGateway, ipGateway } from './platform/http/gateway';
import { docsPage, openApiDocument, registerSecuritySchemes } from './platform/http/openapi';
import { registerWebhookEvents } from './modules/webhooks-checkout/webhooks/openapi';
import type { ServicesFactory } from './platform/services';
import { apiKeyRoutes } from './modules/access/api-keys/routes';
import { authRoutes } from './modules/access/auth/routes';
import { healthRoutes } from './modules/access/health/routes';
import { meRoutes } from './modules/access/me/routes';
import { couponRoutes } from './modules/catalog/coupons/routes';
import { priceAlertRoutes } from './modules/catalog/pharmacy-price-changes/routes';
import { catalogRoutes } from './modules/catalog/program-templates/routes';
import { productRoutes } from './modules/catalog/products/routes';
import { uploadRoutes } from './modules/catalog/uploads/routes';
import { tenantPriceRoutes } from './modules/catalog/tenant-products/routes';
import { programCopilotRoutes } from './modules/catalog/programs/copilot/routes';
import { programRoutes } from './modules/catalog/programs/routes';
import { payoutRoutes } from './modules/orders/payouts/routes';
import { refundRoutes } from './modules/orders/refunds/routes';
import { orderRoutes } from './modules/orders/orders/routes';
import { customerRoutes } from './modules/orders/customers/routes';
import { titrationScheduleRoutes } from './modules/orders/titration-schedule/routes';
import { devSimulatorRoutes } from './modules/orders/orders/lifecycle/dev-routes';
import { webhookRoutes } from './modules/webhooks-checkout/webhooks/routes';
import { kickDeliveries } from './modules/webhooks-checkout/webhooks/deliveries/dispatchers';
import { webhookDeliveryRoutes } from './modules/webhooks-checkout/webhooks/deliveries/routes';
import { checkoutRoutes } from './modules/webhooks-checkout/checkout/routes';
import { contactRoutes } from './modules/crm/contacts/routes';
import { tagRoutes } from './modules/crm/tags/routes';
import { messageTemplateRoutes } from './modules/crm/message-templates/routes';
import { sequenceRoutes } from './modules/crm/sequences/routes';
import { affiliateRoutes } from './modules/crm/affiliate-program/routes';
import { crmConnectionRoutes } from './modules/crm/connection/routes';
import { pageBuilderRoutes } from './modules/storefront/page-builder/routes';
import { customWebsiteRoutes } from './modules/storefront/custom-website/routes';
import { treatmentRoutes } from './modules/storefront/treatments/routes';
import { formRoutes } from './modules/storefront/forms/routes';
import { intakeRequestRoutes } from './modules/storefront/intake-requests/routes';
import { teleformRemovalRoutes } from './modules/storefront/teleform-removals/routes';
import { notificationRoutes } from './modules/organization/notifications/routes';
import { dashboardRoutes } from './modules/orders/dashboard/routes';
import { analyticsRoutes } from './modules/storefront/analytics/routes';
import { billingRoutes } from './modules/organization/billing/routes';
import { onboardingRoutes } from './modules/organization/onboarding/routes';
import { sandboxRoutes } from './modules/organization/sandbox/routes';
import { organizationRoutes } from './modules/organization/organization/settings-routes';
import { teamRoutes } from './modules/organization/team/routes';
import { supportRoutes } from './modules/organization/support/routes';

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
