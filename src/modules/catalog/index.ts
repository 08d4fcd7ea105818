// Catalog (spec: "Programs", "Program templates and titration", "Products and catalog", coupons and
// price alerts): what a clinic sells and at what price, and the image uploads of its catalogue. A
// foundation area: it imports no other area; the feature areas use what is exported below.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { couponRoutes } from './coupons/routes';
import { globalFormStructureRoutes } from './global-form-structures/routes';
import { globalProductRoutes } from './global-products/routes';
import { priceAlertRoutes } from './pharmacy-price-changes/routes';
import { productCatalogRoutes } from './product-catalog/routes';
import { productRoutes } from './products/routes';
import { programTemplateRoutes } from './program-templates/routes';
import { programCopilotRoutes } from './programs/copilot/routes';
import { programRoutes } from './programs/routes';
import { tenantProductRoutes } from './tenant-products/routes';
import { titrationProtocolRoutes } from './titration-protocols/routes';
import { uploadRoutes } from './uploads/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', couponRoutes)
  .route('/', priceAlertRoutes)
  .route('/', programTemplateRoutes)
  .route('/', titrationProtocolRoutes)
  .route('/', globalFormStructureRoutes)
  .route('/', productRoutes)
  .route('/', productCatalogRoutes)
  .route('/', globalProductRoutes)
  .route('/', uploadRoutes)
  .route('/', tenantProductRoutes)
  .route('/', programCopilotRoutes)
  .route('/', programRoutes);

export const sweeps: Record<string, Sweep> = {};

export { nextSlug } from './products/slugs';
// Pricing: one function decides a program product's price (checkout, affiliates and the seed use it).
export { priceProduct } from './programs/pricing';
export { type ProductRow, type ProgramRow, pricingInput, programProductsJson, readProgram } from './programs/queries';
// Image uploads: the checks and the storage every area's upload routes share.
export {
  checkImageField,
  IMAGE_RULES,
  imageFileField,
  imageUploadErrors,
  multipartImageBody,
  withDeclaredSizeCheck,
} from './uploads/multipart';
export { imageUploadForm, MAX_IMAGE_BYTES, type StoredImage, storedImage } from './uploads/schemas';
export { type CheckedImage, checkImage, storeImage, type UploadDeps } from './uploads/service';
