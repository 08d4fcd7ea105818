// npm run openapi [-- <path>] — writes the OpenAPI 3.1 document generated from the route declarations to openapi.json (or <path>)
// (the server serves the same document at /api/v1/openapi.json).
import { writeFileSync } from 'node:fs';
import { createApp, loadAreas } from '../src/app';
import { openApiDocument } from '../src/platform/openapi/document';

await loadAreas();
const app = createApp(() => Promise.reject(new Error('the document needs no services')));
const document = openApiDocument(app);
const target = process.argv[2] ?? 'openapi.json';
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
const operations = Object.values(document.paths ?? {}).reduce((n, item) => n + Object.keys(item ?? {}).length, 0);
console.log(`${target}: ${operations} operations`);
