// The Worker isolate's heap budget (docs/benchmarks.md, "Memory"), shared by `npm run bench:memory`
// and test/integration/worker-memory.test.ts.

/** The JS heap after a forced GC with every area warm (a Worker isolate has 128 MB in all). */
export const HEAP_BUDGET_BYTES = 48 * 1024 * 1024;

/**
 * Growth of the heap after GC per request, the ceiling. Not zero: workerd keeps every outbound socket's
 * objects for the isolate's life, closed or not (~0.7 KB each: a Worker that only connects and closes,
 * and the bare Worker, grow that much per request; memory.ts measures both), and the API opens one
 * database connection per request. Ours measured 1.5-1.6 KB per request on 2026-11-27: the rest is about
 * one connection in six whose last socket write workerd never settles, keeping pg's client with it
 * (docs/benchmarks.md). The ceiling holds today's figure with a margin; lower it when that is fixed.
 */
export const GROWTH_BYTES_PER_REQUEST = 2048;

/**
 * The same ceiling for a short run (the test's few hundred requests right after warming), where V8 is
 * still compiling and optimising the request path: 2.9 KB per request measured there on 2026-11-27.
 * A request that kept its context, its body or its answer would add several KB each and fail it.
 */
export const SHORT_RUN_GROWTH_BYTES_PER_REQUEST = 4096;
