// A local stand-in (node:http on 127.0.0.1, no network) for the Twilio number provisioning calls the
// TwilioSmsNumbers adapter makes, on accounts it knows (SID and auth token, HTTP basic auth):
//
//   GET    /2010-04-01/Accounts/{sid}/AvailablePhoneNumbers/US/TollFree.json?SmsEnabled=true&PageSize=N
//          200 { available_phone_numbers: [{ phone_number, friendly_name, capabilities }], uri }
//   POST   /2010-04-01/Accounts/{sid}/IncomingPhoneNumbers/TollFree.json   form PhoneNumber, FriendlyName
//          201 { sid: PN..., account_sid, phone_number, friendly_name, capabilities }
//   DELETE /2010-04-01/Accounts/{sid}/IncomingPhoneNumbers/{PN sid}.json  204
//
// Errors { code, message, more_info, status }: bad credentials 401 20003; a number that is not
// available 400 21422; an unknown number sid 404 20404. takeBeforePurchase(n) lets "someone else"
// buy the first n numbers between the search and the purchase; failNext(status, body) queues errors.
import { randomBytes } from 'node:crypto';
import { sendJson as answer, flatHeaders, readBody, startLocalServer } from './http-stand-in';

export interface TwilioRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  form: Record<string, string>;
}

export interface TwilioNumbersStandIn {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  requests: TwilioRequest[];
  /** Numbers available to buy, in the order the search lists them. */
  pool: string[];
  /** Numbers bought on the account: sid -> number. */
  owned: Map<string, string>;
  takeBeforePurchase(count: number): void;
  failNext(status: number, body: Record<string, unknown>): void;
  close(): Promise<void>;
}

const error = (status: number, code: number, message: string) => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status,
});

export async function startTwilioNumbersStandIn(): Promise<TwilioNumbersStandIn> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const requests: TwilioRequest[] = [];
  const pool = ['+18885550101', '+18885550102', '+18885550103', '+18775550104', '+18665550105', '+18555550106', '+18445550107'];
  const owned = new Map<string, string>();
  const failures: { status: number; body: Record<string, unknown> }[] = [];
  let stolen = 0;

  const server = await startLocalServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const form = Object.fromEntries(new URLSearchParams(raw));
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: flatHeaders(req),
      form,
    });
    const failing = failures.shift();
    if (failing) return answer(res, failing.status, failing.body);

    const match = /^\/2010-04-01\/Accounts\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!match) return answer(res, 404, error(404, 20404, 'The requested resource was not found'));
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected || match[1] !== accountSid) return answer(res, 401, error(401, 20003, 'Authenticate'));
    const rest = match[2]!;

    if (req.method === 'GET' && rest === '/AvailablePhoneNumbers/US/TollFree.json') {
      const size = Math.min(Number(url.searchParams.get('PageSize') ?? 50), 50);
      const listed = pool.slice(0, size);
      // Someone else buys the first numbers right after they were listed.
      for (; stolen > 0 && pool.length > 0; stolen--) pool.shift();
      return answer(res, 200, {
        available_phone_numbers: listed.map((n) => ({
          phone_number: n,
          friendly_name: n,
          iso_country: 'US',
          capabilities: { SMS: true, MMS: true, voice: true },
        })),
        uri: rest,
      });
    }
    if (req.method === 'POST' && rest === '/IncomingPhoneNumbers/TollFree.json') {
      const number = form.PhoneNumber ?? '';
      const at = pool.indexOf(number);
      if (at < 0) return answer(res, 400, error(400, 21422, `PhoneNumber ${number} is not available.`));
      pool.splice(at, 1);
      const sid = `PN${randomBytes(16).toString('hex')}`;
      owned.set(sid, number);
      return answer(res, 201, {
        sid,
        account_sid: accountSid,
        phone_number: number,
        friendly_name: form.FriendlyName ?? number,
        capabilities: { sms: true, mms: true, voice: true },
      });
    }
    const release = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest);
    if (req.method === 'DELETE' && release) {
      const number = owned.get(release[1]!);
      if (!number) return answer(res, 404, error(404, 20404, `The requested resource ${url.pathname} was not found`));
      owned.delete(release[1]!);
      pool.push(number);
      return answer(res, 204);
    }
    return answer(res, 404, error(404, 20404, 'The requested resource was not found'));
  });

  return {
    baseUrl: server.origin,
    accountSid,
    authToken,
    requests,
    pool,
    owned,
    takeBeforePurchase(count) {
      stolen = count;
    },
    failNext(status, body) {
      failures.push({ status, body });
    },
    close: server.close,
  };
}
