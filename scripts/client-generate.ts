// npm run client:generate — regenerates the TypeScript client's types (clients/typescript/src/schema.d.ts)
// from the route declarations. Run it after changing a route or a schema, and commit the result.
import { writeFileSync } from 'node:fs';
import { CLIENT_SCHEMA_PATH, clientSchemaSource } from './lib/client-schema';

writeFileSync(CLIENT_SCHEMA_PATH, await clientSchemaSource());
console.log(`${CLIENT_SCHEMA_PATH}: written`);
