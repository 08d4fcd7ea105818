// npm run db:migrate — applies migrations/ to DATABASE_URL (Neon or any PostgreSQL).
import { migrateDatabase } from './lib/migrations';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('Set DATABASE_URL to the database to migrate.');
  process.exit(1);
}
await migrateDatabase(url);
console.log('Migrations applied.');
