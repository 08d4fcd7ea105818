// Where the rehearsal's Worker reaches the outside world. The Worker runs with production's own vendor
// URLs (https://api.stripe.com, https://api.resend.com, https://qstash.upstash.io, ...): nothing in its
// configuration names a stand-in. Every fetch() it makes leaves workerd through Miniflare's
// outboundService, which is this router: it plays DNS, sending each vendor's host to the local
// stand-in that speaks that vendor's wire protocol (same method, path, query, headers and body; only
// the scheme and host change). A host nobody registered answers 502, so a call to an unexpected host
// is seen (the rehearsal asserts the list of unrouted calls is empty).
//
// Faults are the router's too: a host can be 'down' (the connection is refused: fetch throws, as it
// does for an unreachable host) or 'hang' (no answer until the caller gives up), for a while.

export type HostFault = 'pass' | 'down' | 'hang';

/** One route: requests to `host` (and optionally a path prefix) go to `target` (http://127.0.0.1:port[/base]). */
export interface OutboundRoute {
  host: string;
  pathPrefix?: string;
  target: string;
}

export interface OutboundCall {
  method: string;
  url: string;
  status: number | 'down' | 'hang' | 'unrouted';
}

export interface OutboundRouter {
  handle(request: Request): Promise<Response>;
  add(route: OutboundRoute): void;
  setFault(host: string, fault: HostFault): void;
  calls: OutboundCall[];
  /** Calls to a host with no route (should stay empty). */
  unrouted(): OutboundCall[];
  /** Ends every hanging call (at shutdown). */
  releaseHangs(): void;
}

export function createOutboundRouter(routes: OutboundRoute[] = []): OutboundRouter {
  const table = [...routes];
  const faults = new Map<string, HostFault>();
  const calls: OutboundCall[] = [];
  const hanging = new Set<() => void>();

  const find = (url: URL) =>
    table
      .filter((r) => r.host === url.host && (!r.pathPrefix || url.pathname.startsWith(r.pathPrefix)))
      .sort((a, b) => (b.pathPrefix?.length ?? 0) - (a.pathPrefix?.length ?? 0))[0];

  return {
    calls,
    add: (route) => table.push(route),
    setFault: (host, fault) => faults.set(host, fault),
    unrouted: () => calls.filter((c) => c.status === 'unrouted'),
    releaseHangs() {
      for (const release of hanging) release();
      hanging.clear();
    },
    async handle(request) {
      const url = new URL(request.url);
      const call: OutboundCall = { method: request.method, url: request.url, status: 'unrouted' };
      calls.push(call);
      const route = find(url);
      if (!route) return new Response(`rehearsal: no stand-in for ${url.host}`, { status: 502 });
      const fault = faults.get(url.host) ?? 'pass';
      if (fault === 'down') {
        call.status = 'down';
        throw new TypeError(`rehearsal: ${url.host} is down (connection refused)`);
      }
      if (fault === 'hang') {
        call.status = 'hang';
        // Held until the caller's own timeout aborts it (or the rehearsal ends).
        return new Promise<Response>((_, reject) => {
          const release = () => reject(new TypeError(`rehearsal: ${url.host} never answered`));
          hanging.add(release);
          request.signal?.addEventListener('abort', () => {
            hanging.delete(release);
            release();
          });
        });
      }
      const target = new URL(route.target);
      const forwarded = new URL(`${target.origin}${target.pathname.replace(/\/$/, '')}${url.pathname}${url.search}`);
      const headers = new Headers(request.headers);
      headers.delete('host');
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      const res = await fetch(forwarded, { method: request.method, headers, body, redirect: 'manual' });
      call.status = res.status;
      // A fresh Response: the body is read here, so nothing of the Node fetch outlives the call.
      return new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    },
  };
}
