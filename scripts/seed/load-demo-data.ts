// npm run db:seed — loads the demo data into DATABASE_URL. Development only.

import { connect } from '../lib/database';
import { seedDemoData } from './index';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('Set DATABASE_URL to the database to seed.');
  process.exit(1);
}
if (process.env.ENVIRONMENT === 'production') {
  console.error('Refusing to load demo data with ENVIRONMENT=production.');
  process.exit(1);
}
const { db, close } = connect(url);
await seedDemoData(db);
await close();
console.log('Demo data loaded.');
