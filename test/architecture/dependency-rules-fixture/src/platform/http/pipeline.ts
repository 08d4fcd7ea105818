// Breaks platform-floor-openapi: the pipeline importing the document's code.
import { document } from '../openapi/document';

export const pipeline = document;
