// The dependency rule (docs/architecture.md): config and drizzle/schema at the ground, then platform,
// then the foundation areas (access, catalog, orders, in that order), then the feature areas
// (webhooks-checkout, crm, storefront, organization), then src/app.ts and src/scheduled.ts, then
// scripts and tests. Imports point down this list, never up, never in a circle, and an area is used
// by another only through its index.ts. test/architecture/dependency-rules.test.ts runs these rules in
// `npm test`; `npx depcruise src scripts drizzle` prints the same report.
const FOUNDATION = ['access', 'catalog', 'orders'];
const FEATURE = ['webhooks-checkout', 'crm', 'storefront', 'organization'];
const area = (names) => `^src/modules/(${names.join('|')})/`;

/** Foundation areas may use the foundation areas before them in FOUNDATION, never one after it. */
const foundationOrder = FOUNDATION.slice(0, -1).map((name, i) => ({
  name: `foundation-order-${name}`,
  comment: `${name} is below ${FOUNDATION.slice(i + 1).join(' and ')} (foundation areas: ${FOUNDATION.join(' < ')})`,
  severity: 'error',
  from: { path: `^src/modules/${name}/` },
  to: { path: area(FOUNDATION.slice(i + 1)) },
}));

/**
 * Inside platform the same rule holds, floor by floor (docs/architecture.md, "Inside platform"):
 * values (errors, ids, money, dates, strings, markup) import nothing of platform; db and crypto only
 * values (and log.ts, which imports nothing); auth, rate-limit, providers and events nothing of the
 * request pipeline (http) or the document (openapi); http nothing of openapi.
 */
const LOWER_FLOORS = '(values|db|crypto|auth|audit|rate-limit|providers|events)';
const platformFloors = [
  {
    name: 'platform-floor-values',
    comment: 'platform/values is the ground: it imports nothing of platform outside itself',
    severity: 'error',
    from: { path: '^src/platform/values/' },
    to: { path: '^src/platform/(?!values/)' },
  },
  {
    name: 'platform-floor-db-crypto',
    comment: 'platform/db and platform/crypto use only values (and log.ts) of platform',
    severity: 'error',
    from: { path: '^src/platform/(db|crypto)/' },
    to: { path: '^src/platform/(auth|audit|rate-limit|providers|events|http|openapi)/' },
  },
  {
    name: 'platform-floor-pipeline',
    comment: 'Below the request pipeline (values, db, crypto, auth, rate-limit, providers, events) nothing imports http or openapi',
    severity: 'error',
    from: { path: `^src/platform/${LOWER_FLOORS}/` },
    to: { path: '^src/platform/(http|openapi)/' },
  },
  {
    name: 'platform-floor-openapi',
    comment: "The request pipeline (platform/http) never imports the document's code (platform/openapi)",
    severity: 'error',
    from: { path: '^src/platform/http/' },
    to: { path: '^src/platform/openapi/' },
  },
];

module.exports = {
  forbidden: [
    ...platformFloors,
    {
      name: 'no-circular',
      comment: 'No import circles anywhere in the code (type-only imports count: a circle of types is still a circle)',
      severity: 'error',
      from: { path: '^(src|scripts|drizzle)/' },
      to: { circular: true },
    },
    {
      name: 'config-imports-nothing',
      comment: 'src/config is the ground floor: it imports nothing else from the repository',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^(src/(?!config/)|drizzle/|scripts/|test/)' },
    },
    {
      name: 'schema-imports-nothing',
      comment: 'drizzle/ (schema and migrations) imports nothing from src, scripts or tests',
      severity: 'error',
      from: { path: '^drizzle/' },
      to: { path: '^(src|scripts|test)/' },
    },
    {
      name: 'platform-not-modules',
      comment: 'platform is infrastructure without business rules: it never imports an area (nor the app)',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules/|app\\.ts|scheduled\\.ts|index\\.ts)' },
    },
    {
      name: 'area-through-index',
      comment: "An area uses another area only through that area's index.ts",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    ...foundationOrder,
    {
      name: 'foundation-below-features',
      comment: `The foundation areas (${FOUNDATION.join(', ')}) never use a feature area (${FEATURE.join(', ')})`,
      severity: 'error',
      from: { path: area(FOUNDATION) },
      to: { path: area(FEATURE) },
    },
    {
      name: 'features-not-sideways',
      comment: 'A feature area never uses another feature area (what two of them share belongs to a foundation area or platform)',
      severity: 'error',
      from: { path: area(FEATURE) },
      to: { path: area(FEATURE), pathNot: '^src/modules/$1/' },
    },
    {
      name: 'areas-not-composition-roots',
      comment: 'Areas never import src/app.ts, src/scheduled.ts or src/index.ts (they are composed there, not the other way round)',
      severity: 'error',
      from: { path: '^src/(config|platform|modules)/' },
      to: { path: '^src/(app|scheduled|index)\\.ts$' },
    },
    {
      name: 'src-not-scripts-or-tests',
      comment: 'The Worker never imports scripts or tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(scripts|test)/' },
    },
    {
      name: 'src-clients-only-webhook-signature',
      comment:
        'The Worker uses the client package for one thing: webhook-signature.ts, the one implementation of the webhook signatures (the API signs, receivers verify; issue 27). It imports nothing, so the Worker bundles nothing else of the client',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(clients/|node_modules/@brand-admin/)', pathNot: '^clients/typescript/src/webhook-signature\\.ts$' },
    },
    {
      name: 'scripts-through-index',
      comment: 'Scripts (the dev server, seeds, measurements) use an area only through its index.ts',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.wrangler|\\.data|dist|coverage)' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
