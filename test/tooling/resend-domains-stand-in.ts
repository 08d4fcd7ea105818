// A local stand-in (node:http on 127.0.0.1, no network) for Resend's domains API, as the
// ResendEmailDomains adapter calls it:
//
//   POST   /domains             JSON { name }  201 { id, name, status: not_started, records: [...], region, created_at }
//   POST   /domains/{id}/verify                200 { object: domain, id } (the records are checked: verified once published, else pending)
//   GET    /domains/{id}                       200 { object: domain, id, name, status, records (each with its status) }
//   DELETE /domains/{id}                       200 { object: domain, id, deleted: true }
//
// Records as Resend gives them, names relative to the domain: MX send (priority 10), TXT send
// ("v=spf1 ..." quoted), TXT resend._domainkey (DKIM p=...). Errors { statusCode, name, message }:
// no Authorization 401 missing_api_key; a wrong key 403 invalid_api_key; no name 422
// missing_required_field; a bad name 422 validation_error; a registered name 403 validation_error
// ("... has been registered already"); an unknown id 404 not_found. publish(name) makes the
// brand's records visible; failNext(status, body) queues error answers.
import { randomBytes, randomUUID } from 'node:crypto';
import { sendJson as answer, flatHeaders, type RecordedJsonRequest, readBody, startLocalServer } from './http-stand-in';

export type ResendRequest = RecordedJsonRequest;

export interface ResendDomain {
  id: string;
  name: string;
  status: 'not_started' | 'pending' | 'verified';
  published: boolean;
  deleted: boolean;
  dkim: string;
}

export interface ResendDomainsStandIn {
  baseUrl: string;
  apiKey: string;
  requests: ResendRequest[];
  domains: Map<string, ResendDomain>;
  publish(name: string): void;
  failNext(status: number, body: Record<string, unknown>): void;
  close(): Promise<void>;
}

const error = (statusCode: number, name: string, message: string) => ({ statusCode, name, message });

function records(d: ResendDomain) {
  const status = d.status === 'verified' ? 'verified' : d.status;
  return [
    { record: 'SPF', name: 'send', type: 'MX', ttl: 'Auto', status, value: 'feedback-smtp.us-east-1.amazonses.com', priority: 10 },
    { record: 'SPF', name: 'send', type: 'TXT', ttl: 'Auto', status, value: '"v=spf1 include:amazonses.com ~all"' },
    { record: 'DKIM', name: 'resend._domainkey', type: 'TXT', ttl: 'Auto', status, value: `p=${d.dkim}` },
  ];
}

/** `apiKey`: the key to accept (random by default; the rehearsal shares one with the email stand-in, as production shares RESEND_API_KEY). */
export async function startResendDomainsStandIn(options: { apiKey?: string } = {}): Promise<ResendDomainsStandIn> {
  const apiKey = options.apiKey ?? `re_${randomBytes(12).toString('hex')}`;
  const requests: ResendRequest[] = [];
  const domains = new Map<string, ResendDomain>();
  const failures: { status: number; body: Record<string, unknown> }[] = [];

  const server = await startLocalServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return answer(res, 422, error(422, 'validation_error', 'Invalid JSON body.'));
    }
    requests.push({ method: req.method ?? '', path, headers: flatHeaders(req), body });
    const failing = failures.shift();
    if (failing) return answer(res, failing.status, failing.body);
    if (!req.headers.authorization) return answer(res, 401, error(401, 'missing_api_key', 'Missing API key in the authorization header.'));
    if (req.headers.authorization !== `Bearer ${apiKey}`) return answer(res, 403, error(403, 'invalid_api_key', 'API key is invalid'));

    const match = /^\/domains(?:\/([^/]+))?(\/verify)?$/.exec(path);
    if (!match) return answer(res, 404, error(404, 'not_found', 'The requested endpoint could not be found.'));
    const [, id, verify] = match;
    if (req.method === 'POST' && !id) {
      const name = body.name;
      if (typeof name !== 'string' || !name) return answer(res, 422, error(422, 'missing_required_field', 'Missing `name` field.'));
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name)) return answer(res, 422, error(422, 'validation_error', 'Invalid domain name.'));
      if ([...domains.values()].some((d) => d.name === name && !d.deleted)) {
        return answer(res, 403, error(403, 'validation_error', `The ${name} domain has been registered already.`));
      }
      const created: ResendDomain = {
        id: randomUUID(),
        name,
        status: 'not_started',
        published: false,
        deleted: false,
        dkim: randomBytes(120).toString('base64'),
      };
      domains.set(created.id, created);
      return answer(res, 201, {
        id: created.id,
        name,
        status: created.status,
        records: records(created),
        region: 'us-east-1',
        created_at: new Date().toISOString(),
      });
    }
    const found = id ? domains.get(id) : undefined;
    if (!found || found.deleted) return answer(res, 404, error(404, 'not_found', 'Domain not found'));
    if (req.method === 'POST' && verify) {
      found.status = found.published ? 'verified' : 'pending';
      return answer(res, 200, { object: 'domain', id: found.id });
    }
    if (req.method === 'GET' && !verify) {
      return answer(res, 200, {
        object: 'domain',
        id: found.id,
        name: found.name,
        status: found.status,
        records: records(found),
        region: 'us-east-1',
        created_at: new Date().toISOString(),
      });
    }
    if (req.method === 'DELETE' && !verify) {
      found.deleted = true;
      return answer(res, 200, { object: 'domain', id: found.id, deleted: true });
    }
    return answer(res, 405, error(405, 'method_not_allowed', 'Method is not allowed for the requested path.'));
  });

  return {
    baseUrl: server.origin,
    apiKey,
    requests,
    domains,
    publish(name) {
      for (const d of domains.values()) if (d.name === name && !d.deleted) d.published = true;
    },
    failNext(status, body) {
      failures.push({ status, body });
    },
    close: server.close,
  };
}
