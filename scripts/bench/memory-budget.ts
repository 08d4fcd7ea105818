// The Worker isolate's heap budget (docs/benchmarks.md, "Memory"), shared by `npm run bench:memory`
// and test/integration/worker-memory.test.ts.

/** The JS heap after a forced GC with every area warm (a Worker isolate has 128 MB in all). */
export const HEAP_BUDGET_BYTES = 48 * 1024 * 1024;

/**
 * What workerd itself keeps per outbound socket, closed or not, for the isolate's life (measured
 * 2026-11-27 with workerd 1.20260730: a Worker that only connects and closes grows ~0.73 KB per
 * socket after GC; scripts/bench/memory.ts prints it as the "sockets" line). Our Worker opens one
 * database connection per request, so growth up to this per request is the runtime's, not ours.
 */
export const RUNTIME_BYTES_PER_CONNECTION = 1024;
