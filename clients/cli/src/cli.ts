// The command line: `listen` and `trigger`, their flags and environment, and exit codes
// (0 done, 1 the API or the endpoint said no, 2 a usage error). No process globals are touched here:
// bin.ts hands in argv, the environment, the output and Ctrl-C, so tests run it in-process.
import { parseArgs } from 'node:util';
import { BrandAdminConnectionError, BrandAdminError, createClient, unwrap, type WebhookEventName } from '@brand-admin/client';
import { listen, newLocalSecret } from './listen';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

export const USAGE = `Usage: brand-admin <command> [flags]   (npx @brand-admin/cli <command> ...)

Commands:
  listen --forward-to <url>          Forward the clinic's new events to a local URL, signed with a local
                                     secret printed at start (whsec_...), as real deliveries are.
         [--events a,b]              Only these event names.
         [--secret whsec_...]        Sign with this secret instead of a new one (env BRAND_ADMIN_LISTEN_SECRET).
         [--interval <ms>]           Between two polls of the events API (default 2000).
  trigger <event> --endpoint <id>    Send a test event (e.g. order.created) to a webhook endpoint now.

Flags of every command:
  --api-key <key>                    A secret or read key of the clinic (env BRAND_ADMIN_API_KEY).
  --base-url <url>                   The API's origin (env BRAND_ADMIN_BASE_URL, default ${DEFAULT_BASE_URL}).
  --help                             This text.
`;

export interface CliIo {
  env: Record<string, string | undefined>;
  /** Standard output: one line each call. */
  out: (line: string) => void;
  /** Standard error. */
  err: (line: string) => void;
  /** Aborted on Ctrl-C (or the caller's time limit): `listen` stops and returns. */
  signal: AbortSignal;
  /** The fetch both the API client and the forwards use (default the global one). */
  fetch?: typeof fetch;
}

class UsageError extends Error {}

function httpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag}: an http or https URL, not ${url.protocol}`);
  return url.toString();
}

/** Runs one command; answers the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      io.err('Run with --help for the commands and their flags.');
      return 2;
    }
    if (e instanceof BrandAdminError) {
      io.err(`error: the API answered ${e.status} ${e.code}: ${e.message}${e.requestId ? ` (request ${e.requestId})` : ''}`);
      return 1;
    }
    if (e instanceof BrandAdminConnectionError) {
      io.err(`error: the API could not be reached: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const apiKey = values['api-key'] ?? io.env.BRAND_ADMIN_API_KEY;
  if (!apiKey) throw new UsageError('no API key: pass --api-key or set BRAND_ADMIN_API_KEY');
  const baseUrl = httpUrl(values['base-url'] ?? io.env.BRAND_ADMIN_BASE_URL ?? DEFAULT_BASE_URL, '--base-url').replace(/\/$/, '');
  const api = createClient({ baseUrl, apiKey, ...(io.fetch ? { fetch: io.fetch } : {}) });

  if (command === 'listen') {
    if (rest.length > 0) throw new UsageError(`listen takes no argument (got ${rest.join(' ')})`);
    if (!values['forward-to']) throw new UsageError('listen needs --forward-to <url>, e.g. --forward-to http://localhost:3000/hooks');
    const forwardTo = httpUrl(values['forward-to'], '--forward-to');
    const interval = values.interval === undefined ? 2_000 : Number(values.interval);
    if (!Number.isInteger(interval) || interval < 100 || interval > 600_000)
      throw new UsageError('--interval: milliseconds, 100 to 600000');
    const secret = values.secret ?? io.env.BRAND_ADMIN_LISTEN_SECRET ?? newLocalSecret();
    if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new UsageError('--secret: whsec_ followed by base64');
    const events = (values.events ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean) as WebhookEventName[];

    // Signs in: the key is checked (and its clinic named) before anything is forwarded.
    const me = unwrap(await api.GET('/api/v1/me')).data;
    io.out(`Your local webhook signing secret is ${secret} (verify the forwards with it)`);
    const ready = () =>
      io.out(
        `Ready! Forwarding the new events of clinic ${me.clinicId} (key ${me.keyPrefix}..., ${baseUrl})` +
          `${events.length ? ` named ${events.join(', ')}` : ''} to ${forwardTo}. Ctrl-C to quit.`,
      );
    await listen({ api, forwardTo, secret, events, intervalMs: interval, print: io.out, ready, signal: io.signal, fetch: io.fetch });
    return 0;
  }

  if (command === 'trigger') {
    const [event, ...extra] = rest;
    if (!event || extra.length > 0) throw new UsageError('trigger takes one event name, e.g. trigger order.created --endpoint <id>');
    if (!values.endpoint) throw new UsageError('trigger needs --endpoint <webhook endpoint id>');
    const { data } = unwrap(
      await api.POST('/api/v1/webhooks/{id}/test', {
        params: { path: { id: values.endpoint } },
        body: { event: event as WebhookEventName },
      }),
    );
    const { delivery, attempt } = data;
    const outcome = attempt.responseStatus === null ? `error (${attempt.error})` : String(attempt.responseStatus);
    io.out(`${delivery.event} test delivery ${delivery.id} to endpoint ${values.endpoint}: ${delivery.status} [${outcome}]`);
    return delivery.status === 'succeeded' ? 0 : 1;
  }

  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      secret: { type: 'string' },
      interval: { type: 'string' },
      endpoint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
