// The benchmark's load generator: closed loop (each of `concurrency` clients sends its next request as
// soon as the previous answer has been read in full), for a fixed duration, over keep-alive
// connections (one per client), recording every request's latency. Loopback only. GETs by default;
// a write gives `next`, which makes each request's body and headers afresh (a new coupon code, a new
// Idempotency-Key, the next refundable order) and may end the run early by answering undefined.
import { Agent, request } from 'node:http';

/** One request of a write run: its body (JSON) and the headers it adds. */
export interface WriteRequest {
  body: string;
  headers?: Record<string, string>;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  /** POST, with the body `next` makes per request; undefined from it ends the run (a pool used up). */
  next?: () => WriteRequest | undefined;
  concurrency: number;
  durationMs: number;
  /** A request not answered within this long counts as an error and its connection is dropped. */
  timeoutMs?: number;
}

export interface LoadResult {
  /** Requests answered (any status) within the run. */
  requests: number;
  /** Requests that failed (no answer, timeout) or answered something other than 2xx. */
  errors: number;
  statuses: Record<string, number>;
  /** Milliseconds per answered request, in completion order. */
  latencies: number[];
  /** From the first request sent to the last answer read. */
  elapsedMs: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** One GET (or POST, with a body) on a kept-alive connection; resolves with the status once the whole answer is read. */
function send(agent: Agent, url: URL, headers: Record<string, string>, timeoutMs: number, write?: WriteRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const method = write ? 'POST' : 'GET';
    const all = write ? { ...headers, 'content-type': 'application/json', ...write.headers } : headers;
    const req = request(url, { agent, method, headers: all, timeout: timeoutMs }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(write?.body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`the load generator only targets this machine, not ${url.hostname}`);
  if (!(options.concurrency >= 1) || !(options.durationMs > 0)) throw new Error('concurrency and duration must be positive');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const headers = options.headers ?? {};
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const result: LoadResult = { requests: 0, errors: 0, statuses: {}, latencies: [], elapsedMs: 0 };
  const started = performance.now();
  const deadline = started + options.durationMs;

  async function client(): Promise<void> {
    while (performance.now() < deadline) {
      const write = options.next?.();
      if (options.next && !write) return;
      const sent = performance.now();
      let status: string;
      try {
        const code = await send(agent, url, headers, timeoutMs, write);
        status = String(code);
        result.requests += 1;
        result.latencies.push(performance.now() - sent);
        if (code < 200 || code > 299) result.errors += 1;
      } catch {
        status = 'failed';
        result.errors += 1;
        await new Promise((resolve) => setTimeout(resolve, 10)); // a server that refuses must not make this spin
      }
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    }
  }

  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  result.elapsedMs = performance.now() - started;
  return result;
}

/** The value below which `p` (0..1) of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank]!;
}

export interface LoadSummary {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

/** Several runs of the same load (rounds) as one: total requests over total time, percentiles of all latencies. */
export function summarize(runs: LoadResult[]): LoadSummary {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const elapsed = runs.reduce((sum, run) => sum + run.elapsedMs, 0);
  return {
    requests,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    rps: elapsed > 0 ? (requests * 1000) / elapsed : 0,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}
