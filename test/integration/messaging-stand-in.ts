// A local stand-in (node:http on 127.0.0.1, no network) for the two provider calls the production
// message senders make, so the adapters are tested end to end:
//
//   Resend  POST /emails   Authorization: Bearer <key>; JSON { from, to: [..], subject, text|html }.
//                          200 { id } (a uuid). Idempotency-Key: the same key and body answers the first id
//                          again (no second email); the same key with another body is 409
//                          invalid_idempotent_request. Errors { statusCode, name, message }: 401
//                          missing_api_key, 403 invalid_api_key, 422 validation_error / missing_required_field.
//   Twilio  POST /2010-04-01/Accounts/{sid}/Messages.json   Basic auth sid:token (and the path's sid);
//                          form To, From, Body. 201 { sid: SM..., status: queued, to, from, body }.
//                          Errors { code, message, more_info, status }: 401 20003, 400 21604 (no To),
//                          21603 (no From), 21602 (no Body), 21211 (To not a valid number).
//
// failNext(provider, status, body) queues error answers (each taken by that provider's next request on
// arrival); delayNext(ms) holds the next answer and setLatency(ms) every answer. Every request is
// recorded, and every email or SMS accepted (replays excluded) is listed.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedProviderRequest {
  provider: 'resend' | 'twilio';
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body, and parsed: JSON (Resend) or form fields (Twilio). */
  raw: string;
  body: Record<string, unknown>;
}

export interface MessagingStandIn {
  baseUrl: string;
  resendKey: string;
  twilioSid: string;
  twilioToken: string;
  requests: RecordedProviderRequest[];
  /** Emails and SMS accepted (a replay of an idempotency key is not a second email). */
  emails: { id: string; body: Record<string, unknown>; idempotencyKey: string | null }[];
  sms: { sid: string; body: Record<string, string> }[];
  failNext(provider: 'resend' | 'twilio', status: number, body: Record<string, unknown>, times?: number): void;
  delayNext(ms: number): void;
  /** Every answer waits this long (0: none). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;

function answer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `resendKey`: the key to accept (random by default; the rehearsal shares one with the Resend domains stand-in). */
export async function startMessagingStandIn(options: { resendKey?: string } = {}): Promise<MessagingStandIn> {
  const resendKey = options.resendKey ?? `re_${randomBytes(12).toString('hex')}`;
  const twilioSid = `AC${randomBytes(16).toString('hex')}`;
  const twilioToken = randomBytes(16).toString('hex');
  const requests: RecordedProviderRequest[] = [];
  const emails: MessagingStandIn['emails'] = [];
  const sms: MessagingStandIn['sms'] = [];
  const failures: { provider: 'resend' | 'twilio'; status: number; body: Record<string, unknown> }[] = [];
  const replays = new Map<string, { raw: string; id: string }>();
  let delay = 0;
  let latency = 0;

  const resend = (req: IncomingMessage, res: ServerResponse, raw: string, body: Record<string, unknown>) => {
    const auth = req.headers.authorization;
    if (!auth)
      return answer(res, 401, { statusCode: 401, name: 'missing_api_key', message: 'Missing API key in the authorization header.' });
    if (auth !== `Bearer ${resendKey}`)
      return answer(res, 403, { statusCode: 403, name: 'invalid_api_key', message: 'API key is invalid' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return answer(res, 422, { statusCode: 422, name: 'validation_error', message: 'Invalid content type' });
    }
    const missing = ['from', 'to', 'subject'].filter((field) => body[field] === undefined || body[field] === '');
    if (missing.length || (body.text === undefined && body.html === undefined)) {
      return answer(res, 422, { statusCode: 422, name: 'missing_required_field', message: `Missing \`${missing[0] ?? 'text'}\` field.` });
    }
    const to = body.to;
    if (!Array.isArray(to) || to.length === 0 || to.length > 50 || !to.every((a) => typeof a === 'string' && /^[^@\s]+@[^@\s]+$/.test(a))) {
      return answer(res, 422, { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' });
    }
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    if (key) {
      const seen = replays.get(key);
      if (seen && seen.raw !== raw) {
        return answer(res, 409, {
          statusCode: 409,
          name: 'invalid_idempotent_request',
          message: 'Same idempotency key used with a different request payload.',
        });
      }
      if (seen) return answer(res, 200, { id: seen.id });
    }
    const id = randomUUID();
    if (key) replays.set(key, { raw, id });
    emails.push({ id, body, idempotencyKey: key });
    return answer(res, 200, { id });
  };

  const twilio = (req: IncomingMessage, res: ServerResponse, path: string, form: Record<string, string>) => {
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
    if (!match) return answer(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    const expected = `Basic ${Buffer.from(`${twilioSid}:${twilioToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected || match[1] !== twilioSid) {
      return answer(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return answer(res, 400, { code: 21602, message: 'Message body is required.', status: 400 });
    }
    if (!form.To) return answer(res, 400, { code: 21604, message: "A 'To' phone number is required.", status: 400 });
    if (!form.From) return answer(res, 400, { code: 21603, message: "A 'From' phone number is required.", status: 400 });
    if (!form.Body) return answer(res, 400, { code: 21602, message: 'Message body is required.', status: 400 });
    if (!E164.test(form.To))
      return answer(res, 400, { code: 21211, message: `The 'To' number ${form.To} is not a valid phone number.`, status: 400 });
    const sid = `SM${randomBytes(16).toString('hex')}`;
    sms.push({ sid, body: form });
    return answer(res, 201, { sid, status: 'queued', to: form.To, from: form.From, body: form.Body, account_sid: twilioSid });
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const provider = path === '/emails' ? 'resend' : 'twilio';
    let body: Record<string, unknown> = {};
    if (provider === 'resend') {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = {};
      }
    } else {
      body = Object.fromEntries(new URLSearchParams(raw));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
    requests.push({ provider, method: req.method ?? '', path, headers, raw, body });
    // A queued failure is taken on arrival, before any delay: a held request its caller gave up on
    // must not take a failure queued later for another request.
    const failure = req.method === 'POST' ? failures.findIndex((f) => f.provider === provider) : -1;
    const [failing] = failure >= 0 ? failures.splice(failure, 1) : [];
    const wait = delay || latency;
    delay = 0;
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    if (req.method !== 'POST') return answer(res, 405, { message: 'Method not allowed' });
    if (failing) return answer(res, failing.status, failing.body);
    if (provider === 'resend') return resend(req, res, raw, body);
    return twilio(req, res, path, body as Record<string, string>);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    resendKey,
    twilioSid,
    twilioToken,
    requests,
    emails,
    sms,
    failNext(provider, status, body, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ provider, status, body });
    },
    delayNext(ms) {
      delay = ms;
    },
    setLatency(ms) {
      latency = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
