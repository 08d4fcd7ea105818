// The multipart logo upload both logo routes share (field `logo`), on the uploads area's checks
// (src/modules/catalog/uploads/multipart.ts: type from the bytes, 5 MiB, the declared-size refusal).
import { type CheckedImage, checkImageField, imageUploadErrors, withDeclaredSizeCheck } from '../../catalog';
import { logoUploadForm } from './schemas';

export const logoMultipartBody = {
  content: { 'multipart/form-data': { schema: logoUploadForm } },
  required: true,
  description: 'multipart/form-data with one file field, logo.',
};

export const logoUploadErrors = imageUploadErrors;
export { withDeclaredSizeCheck };

/** checkImage with its 400 naming body.logo instead of body.image. */
export const checkLogo = (file: Blob): Promise<CheckedImage> => checkImageField(file, 'logo');
