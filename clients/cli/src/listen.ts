// `listen`: follows the clinic's events (GET /api/v1/events) and forwards each new one to a local URL,
// signed with a local secret exactly as a real delivery is signed (both schemes, the same headers), as
// `stripe listen` does. Only events created after it starts are forwarded; each once (by event id).
import { type BrandAdminClient, unwrap, type WebhookEventName } from '@brand-admin/client';
import { SECRET_PREFIX, serviceSignatureHeader, standardSignatureHeader } from '@brand-admin/client/webhook-signature';

/** One event as the events API lists it: the delivery body `{ id, type, createdAt, data }` field for field. */
export interface ListedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface ListenOptions {
  api: BrandAdminClient;
  /** The local URL each event is POSTed to, e.g. http://localhost:3000/hooks. */
  forwardTo: string;
  /** The local signing secret (whsec_...): newLocalSecret() unless given. */
  secret: string;
  /** Only these event names (all when empty or absent). */
  events?: readonly WebhookEventName[] | undefined;
  /** Milliseconds between two polls (default 2000). */
  intervalMs?: number | undefined;
  /**
   * How far back each poll looks before the newest event seen (default 60 s): an event committed late
   * (its createdAt is its transaction's time) is still found; what was already forwarded is skipped by id.
   */
  lookbackMs?: number | undefined;
  /** Milliseconds a forward may take before it counts as failed (default 10 s). */
  forwardTimeoutMs?: number | undefined;
  /** One line per event and the start banner. */
  print: (line: string) => void;
  /** Called once what existed at start has been noted: from then on every new event is forwarded. */
  ready?: (() => void) | undefined;
  /** Stops listening (Ctrl-C, or the caller's time limit). */
  signal: AbortSignal;
  /** The fetch the forwards use (default the global one). */
  fetch?: typeof fetch | undefined;
}

export interface ForwardResult {
  event: ListedEvent;
  /** The local URL's HTTP status, or null when it could not be reached in time. */
  status: number | null;
  error: string | null;
}

/** A fresh local signing secret: whsec_ and 32 random bytes in base64 (the API's secrets' form). */
export function newLocalSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return SECRET_PREFIX + btoa(String.fromCharCode(...bytes));
}

/** The body and headers of a forward: what a real delivery of this event carries, signed with `secret`. */
export async function signedDelivery(event: ListedEvent, secret: string, nowSeconds = Math.floor(Date.now() / 1000)) {
  // Field for field and in the order of the API's deliveries (deliver.ts): receivers that verify the raw
  // body see exactly the bytes a real delivery would carry.
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
  const [service, standard] = await Promise.all([
    serviceSignatureHeader([secret], nowSeconds, body),
    standardSignatureHeader([secret], event.id, nowSeconds, body),
  ]);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhooks/1.0',
    'x-service-signature': service,
    'x-service-event': event.type,
    'x-service-delivery-id': crypto.randomUUID(),
    'x-service-idempotency-key': event.id,
    'webhook-id': event.id,
    'webhook-timestamp': String(nowSeconds),
    'webhook-signature': standard,
  };
  return { body, headers };
}

/** POSTs one event to the local URL; never throws. */
export async function forwardEvent(
  event: ListedEvent,
  options: Pick<ListenOptions, 'forwardTo' | 'secret' | 'forwardTimeoutMs' | 'fetch'>,
): Promise<ForwardResult> {
  const { body, headers } = await signedDelivery(event, options.secret);
  const send = options.fetch ?? globalThis.fetch;
  try {
    const response = await send(options.forwardTo, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.forwardTimeoutMs ?? 10_000),
    });
    await response.body?.cancel();
    return { event, status: response.status, error: null };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const reason = (e as Error).name === 'TimeoutError' ? 'timed out' : (cause?.code ?? cause?.message ?? (e as Error).message);
    return { event, status: null, error: reason };
  }
}

/** The line printed for one forward: time, event name, event id, the local answer. */
export function forwardLine(result: ForwardResult, forwardTo: string, at: Date = new Date()): string {
  const outcome = result.status === null ? `error (${result.error})` : String(result.status);
  return `${at.toISOString()}  ${result.event.type.padEnd(22)} ${result.event.id}  --> POST ${forwardTo} [${outcome}]`;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/**
 * Follows the events API until `signal` aborts. Each poll asks for the events created at or after
 * (newest seen − lookback), newest first, every page (limit 200); what has not been seen is forwarded
 * oldest first and remembered by id. The first poll only takes note: events that existed before
 * `listen` started are not forwarded. Answers the forwards made, in order.
 *
 * Newest first is safe to page while events are being written: a new event pushes the older ones to
 * later pages (listed twice, forwarded once), never out of the pages being read.
 */
export async function listen(options: ListenOptions): Promise<ForwardResult[]> {
  const { api, signal } = options;
  const interval = options.intervalMs ?? 2_000;
  const lookback = options.lookbackMs ?? 60_000;
  const type = options.events && options.events.length > 0 ? [...options.events] : undefined;
  const seen = new Map<string, number>(); // event id → createdAt (ms)
  let newest: number | null = null;
  const results: ForwardResult[] = [];

  const poll = async (): Promise<ListedEvent[]> => {
    const createdGte = newest === null ? undefined : new Date(newest - lookback).toISOString();
    const fresh: ListedEvent[] = [];
    const query = { limit: 200, ...(createdGte ? { createdGte } : {}), ...(type ? { type } : {}) };
    for await (const event of api.paginate('/api/v1/events', { params: { query } })) {
      if (seen.has(event.id)) continue;
      const at = Date.parse(event.createdAt);
      seen.set(event.id, at);
      fresh.push(event as ListedEvent);
      if (newest === null || at > newest) newest = at;
    }
    // Ids older than the next window are never listed again: forget them (memory stays bounded).
    if (newest !== null) for (const [id, at] of seen) if (at < newest - lookback) seen.delete(id);
    // Newest first from the API; forwarded in the order they happened.
    return fresh.reverse();
  };

  // What exists already is not forwarded: the newest event sets the first window, whose events are noted.
  const first = await api.GET('/api/v1/events', { params: { query: { limit: 1, ...(type ? { type } : {}) } } });
  const latest = unwrap(first).data[0];
  if (latest) {
    newest = Date.parse(latest.createdAt);
    await poll();
  }
  options.ready?.();
  while (!signal.aborted) {
    await sleep(interval, signal);
    if (signal.aborted) break;
    let fresh: ListedEvent[];
    try {
      fresh = await poll();
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (status === 401 || status === 403) throw e; // the key is refused: nothing to wait for
      options.print(`${new Date().toISOString()}  could not read the events (${(e as Error).message}); trying again`);
      continue;
    }
    for (const event of fresh) {
      const result = await forwardEvent(event, options);
      results.push(result);
      options.print(forwardLine(result, options.forwardTo));
    }
  }
  return results;
}
