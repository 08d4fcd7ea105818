// The Worker isolate's heap budget (docs/benchmarks.md, "Memory"), shared by `npm run bench:memory`
// and test/integration/worker-memory.test.ts.

/** The JS heap after a forced GC with every area warm (a Worker isolate has 128 MB in all). */
export const HEAP_BUDGET_BYTES = 48 * 1024 * 1024;

/**
 * Growth of the heap after GC per request, the ceiling. Not zero: workerd keeps every outbound socket's
 * objects for the isolate's life, closed or not (~0.7 KB each: a Worker that only connects and closes,
 * and the bare Worker, grow that much per request; memory.ts measures both), and the API opens one
 * database connection per request. Ours measured 0.45 KB per request over 2,000 and 0.68 KB over the
 * second 10,000 on 2026-11-27, once close() waited for pg's Terminate write (pool-guard.ts); 1.5-1.6 KB
 * before, when one connection in six kept pg's client (~5 KB) with that unsettled write. The ceiling
 * holds today's figure with a margin and fails if that leak comes back.
 */
export const GROWTH_BYTES_PER_REQUEST = 1024;

/**
 * The same ceiling for a short run (the test's few hundred requests right after warming), where V8 is
 * still compiling and optimising the request path: 1.2-1.5 KB per request measured there on 2026-11-27
 * (2.9 KB before the fix above). A request that kept its context, its body or its answer would add
 * several KB each and fail it.
 */
export const SHORT_RUN_GROWTH_BYTES_PER_REQUEST = 2048;
