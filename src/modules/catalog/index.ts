// Catalog (spec: "Programs", "Program templates and titration", "Products and catalog", coupons and
// price alerts): what a clinic sells and at what price, and the image uploads of its catalogue. A
// foundation area: it imports no other area; the feature areas use what is exported below.
import type { Sweep } from '../../platform/sweep';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

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
