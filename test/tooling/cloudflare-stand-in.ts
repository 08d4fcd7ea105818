// A local stand-in (node:http on 127.0.0.1, no network) for Cloudflare for SaaS custom hostnames, as
// the CloudflareCustomHostnames adapter calls it (base URL <stand-in>/client/v4):
//
//   POST   /zones/{zone}/custom_hostnames        JSON { hostname, ssl: { method, type } }
//          201 { success, errors: [], messages: [], result: { id, hostname, status: pending, ssl { status: initializing },
//              ownership_verification { type: txt, name: _cf-custom-hostname.<hostname>, value }, created_at } }
//   GET    /zones/{zone}/custom_hostnames/{id}   200 { result } (status pending or active, ssl.status, verification_errors)
//   DELETE /zones/{zone}/custom_hostnames/{id}   200 { result: { id } }
//
// Errors as Cloudflare answers them ({ success: false, errors: [{ code, message }] }): no Authorization
// 400 1403; a wrong token 403 9109; another zone 404 7003; an invalid hostname 400 1407; a reserved
// top-level name 400 1409; example.com/net/org 400 1411; a duplicate 409 1406; an unknown id 404 1436.
// publish(hostname) makes the brand's DNS "resolve" (hostname and certificate become active);
// failNext(status, errors) queues error answers (each taken by the next request on arrival); delayNext(ms)
// holds the next answer.
import { randomUUID } from 'node:crypto';
import { sendJson as answer, flatHeaders, type RecordedJsonRequest, readBody, startLocalServer } from './http-stand-in';

export type CloudflareRequest = RecordedJsonRequest;

export interface CloudflareHostname {
  id: string;
  hostname: string;
  token: string;
  published: boolean;
  deleted: boolean;
  ssl: Record<string, unknown>;
}

export interface CloudflareStandIn {
  baseUrl: string;
  apiToken: string;
  zoneId: string;
  requests: CloudflareRequest[];
  hostnames: Map<string, CloudflareHostname>;
  publish(hostname: string): void;
  failNext(status: number, errors: { code: number; message: string }[]): void;
  delayNext(ms: number): void;
  close(): Promise<void>;
}

const envelope = (result: unknown) => ({ success: true, errors: [], messages: [], result });
const failure = (code: number, message: string) => ({ success: false, errors: [{ code, message }], messages: [], result: null });

function view(h: CloudflareHostname) {
  return {
    id: h.id,
    hostname: h.hostname,
    status: h.published ? 'active' : 'pending',
    verification_errors: h.published ? [] : ['custom hostname does not CNAME to this zone.'],
    ssl: h.published
      ? { ...h.ssl, status: 'active' }
      : {
          ...h.ssl,
          status: 'pending_validation',
          validation_errors: [{ message: 'The certificate authority could not validate the hostname yet.' }],
        },
    ownership_verification: { type: 'txt', name: `_cf-custom-hostname.${h.hostname}`, value: h.token },
    created_at: new Date().toISOString(),
  };
}

export async function startCloudflareStandIn(): Promise<CloudflareStandIn> {
  const apiToken = `cf-token-${randomUUID()}`;
  const zoneId = randomUUID().replace(/-/g, '');
  const requests: CloudflareRequest[] = [];
  const hostnames = new Map<string, CloudflareHostname>();
  const failures: { status: number; errors: { code: number; message: string }[] }[] = [];
  let delay = 0;

  const server = await startLocalServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return answer(res, 400, failure(1400, 'Unable to decode the JSON request body.'));
    }
    requests.push({ method: req.method ?? '', path, headers: flatHeaders(req), body });
    // A queued failure belongs to the request that arrives next, taken before any delay: a delayed
    // request its caller gave up on must not take a failure queued later for another request.
    const failing = failures.shift();
    if (delay) {
      const wait = delay;
      delay = 0;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    if (failing) return answer(res, failing.status, { success: false, errors: failing.errors, messages: [], result: null });

    if (!req.headers.authorization) return answer(res, 400, failure(1403, 'The request has no Authorization header.'));
    if (req.headers.authorization !== `Bearer ${apiToken}`) return answer(res, 403, failure(9109, 'Invalid access token'));
    const match = /^\/client\/v4\/zones\/([^/]+)\/custom_hostnames(?:\/([^/]+))?$/.exec(path);
    if (!match) return answer(res, 404, failure(7000, 'No route for that URI'));
    if (match[1] !== zoneId)
      return answer(res, 404, failure(7003, 'Could not route to the zone, perhaps your object identifier is invalid?'));
    const id = match[2];

    if (req.method === 'POST' && !id) {
      const hostname = typeof body.hostname === 'string' ? body.hostname : '';
      if (!/^[a-z0-9.-]{1,255}$/.test(hostname) || !hostname.includes('.') || /^[\d.]+$/.test(hostname)) {
        return answer(res, 400, failure(1407, 'Invalid custom hostname.'));
      }
      const top = hostname.split('.').pop()!;
      if (['test', 'example', 'invalid', 'localhost'].includes(top))
        return answer(res, 400, failure(1409, 'Reserved top domain custom hostnames are not supported.'));
      if (/(^|\.)example\.(com|net|org)$/.test(hostname))
        return answer(res, 400, failure(1411, 'Custom hostnames ending in example.com, example.net, or example.org are prohibited.'));
      if ([...hostnames.values()].some((h) => h.hostname === hostname && !h.deleted))
        return answer(res, 409, failure(1406, 'Duplicate custom hostname found.'));
      const created: CloudflareHostname = {
        id: randomUUID(),
        hostname,
        token: randomUUID(),
        published: false,
        deleted: false,
        ssl: (body.ssl as Record<string, unknown>) ?? {},
      };
      hostnames.set(created.id, created);
      return answer(res, 201, envelope(view(created)));
    }
    const found = id ? hostnames.get(id) : undefined;
    if (!found || found.deleted) return answer(res, 404, failure(1436, 'The custom hostname was not found.'));
    if (req.method === 'GET') return answer(res, 200, envelope(view(found)));
    if (req.method === 'DELETE') {
      found.deleted = true;
      return answer(res, 200, envelope({ id: found.id }));
    }
    return answer(res, 405, failure(10405, 'Method not allowed'));
  });

  return {
    baseUrl: `${server.origin}/client/v4`,
    apiToken,
    zoneId,
    requests,
    hostnames,
    publish(hostname) {
      for (const h of hostnames.values()) if (h.hostname === hostname && !h.deleted) h.published = true;
    },
    failNext(status, errors) {
      failures.push({ status, errors });
    },
    delayNext(ms) {
      delay = ms;
    },
    close: server.close,
  };
}
