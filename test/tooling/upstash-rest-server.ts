// A small stand-in for Upstash's Redis REST API, backed by a real Redis through ioredis, so the
// production rate limiter (@upstash/ratelimit over @upstash/redis) can be tested end to end without
// the network. It speaks what those two clients use:
//
//   POST /            body ["CMD", arg, ...]        -> 200 { result } | 400 { error }
//   POST /pipeline    body [["CMD", ...], ...]      -> 200 [{ result } | { error }, ...]   (not atomic)
//   POST /multi-exec  body [["CMD", ...], ...]      -> 200 [{ result } | { error }, ...]   (MULTI/EXEC)
//   Authorization: Bearer <token>, else 401 { error }.
//   Upstash-Encoding: base64 -> every string in the result (nested arrays included) is base64 of its
//   bytes, except a top-level "OK" status, which Upstash sends as is (the client special-cases it).
//
// Numbers stay numbers and nil stays null. ioredis hands HGETALL back as an object; it is flattened to
// the [field, value, ...] array Upstash sends.
//
// Scripts: @upstash/ratelimit's Lua starts with `#!lua flags=allow-key-locking`, a flag Redis 7.0
// refuses ("Unexpected flag in script shebang"). The shebang line is replaced by a Lua comment (line
// numbers in Lua errors stay right) before EVAL / SCRIPT LOAD, and the server keeps a map from the
// SHA1 of the ORIGINAL script (what the client computes and sends to EVALSHA) to the SHA1 Redis knows.
// SCRIPT LOAD answers with the client's SHA. An unknown SHA gets Redis's own
// "NOSCRIPT No matching script. Please use EVAL." so the client falls back to EVAL as it does on Upstash.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

/** The Redis the suites that need one use: TEST_REDIS_URL, else the machine's. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Null when Redis answers PING within a second, else why not: the suites that need Redis are skipped
 * with a warning naming the cause, never passed.
 */
export async function probeRedis(url: string = TEST_REDIS_URL): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause = '';
  client.on('error', (error: Error) => {
    cause ||= error.message; // e.g. "connect ECONNREFUSED 127.0.0.1:6390"; connect() itself only says "Connection is closed."
  });
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return cause || (error instanceof Error ? error.message : String(error));
  } finally {
    client.disconnect();
  }
}

export interface UpstashRestServer {
  /** http://127.0.0.1:<port>, for `new Redis({ url })` / UpstashRateLimiter. */
  url: string;
  token: string;
  /** Lower-case names of the commands run so far ("evalsha", "eval", "script load", ...), in order. */
  commandLog: string[];
  close(): Promise<void>;
}

export interface UpstashRestServerOptions {
  /** The Redis that answers; default TEST_REDIS_URL or redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Bearer token clients must send; random by default. */
  token?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Prepared {
  name: string;
  args: (string | number | Buffer)[];
  /** Adjusts Redis's raw reply before it is encoded (SCRIPT LOAD answers with the client's SHA). */
  after?: (reply: unknown) => unknown;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** Replaces a leading `#!lua ...` shebang (Redis 7.0 refuses newer flags) with a same-line comment. */
export function stripShebang(script: string): string {
  if (!script.startsWith('#!')) return script;
  const newline = script.indexOf('\n');
  const first = newline === -1 ? script : script.slice(0, newline);
  const rest = newline === -1 ? '' : script.slice(newline);
  return `-- shebang removed for Redis 7.0: ${first.slice(2)}${rest}`;
}

// Typed here: @cloudflare/workers-types 5 declares the global `Buffer` as `any`, which drops isBuffer's narrowing.
const isBuffer: (value: unknown) => value is Buffer = Buffer.isBuffer;

function toArg(value: Json): string | number {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (value === null || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function encode(reply: unknown, base64: boolean): Json {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'number') return reply;
  if (isBuffer(reply)) return base64 ? reply.toString('base64') : reply.toString('utf8');
  if (typeof reply === 'string') return base64 ? Buffer.from(reply, 'utf8').toString('base64') : reply;
  if (Array.isArray(reply)) return reply.map((item) => encode(item, base64));
  if (reply instanceof Error) return encode(reply.message, base64);
  if (typeof reply === 'object') {
    // HGETALL: ioredis's reply transformer built an object; Upstash sends the flat array.
    return Object.entries(reply as Record<string, unknown>).flatMap(([field, value]) => [encode(field, base64), encode(value, base64)]);
  }
  return encode(String(reply), base64);
}

/** Top-level encoding: a bare "OK" status goes out unencoded, like Upstash's. */
function encodeResult(reply: unknown, base64: boolean): Json {
  if (isBuffer(reply) && reply.length === 2 && reply.toString('latin1') === 'OK') return 'OK';
  if (reply === 'OK') return 'OK';
  return encode(reply, base64);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: Json) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startUpstashRestServer(options: UpstashRestServerOptions = {}): Promise<UpstashRestServer> {
  const token = options.token ?? randomBytes(16).toString('hex');
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  let lastRedisError = '';
  redis.on('error', (error: Error) => {
    lastRedisError = error.message;
  });
  try {
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Upstash REST stand-in: Redis at ${redisUrl} did not answer (${errorMessage(error)} ${lastRedisError})`.trim());
  }

  /** SHA1 of the script as the client sent it -> SHA1 of the script Redis actually holds. */
  const shaMap = new Map<string, string>();
  const commandLog: string[] = [];
  const serverSha = (clientSha: string) => shaMap.get(clientSha.toLowerCase()) ?? clientSha;

  function prepare(command: Json): Prepared {
    if (!Array.isArray(command) || command.length === 0 || typeof command[0] !== 'string') {
      throw new HttpError(400, 'ERR a command must be a non-empty JSON array starting with its name');
    }
    const name = command[0].toLowerCase();
    const args = command.slice(1).map(toArg);
    const sub = typeof args[0] === 'string' ? args[0].toLowerCase() : '';
    commandLog.push(name === 'script' ? `script ${sub}` : name);

    if ((name === 'eval' || name === 'eval_ro') && typeof args[0] === 'string') {
      const original = args[0];
      const stripped = stripShebang(original);
      shaMap.set(sha1(original), sha1(stripped));
      return { name, args: [stripped, ...args.slice(1)] };
    }
    if ((name === 'evalsha' || name === 'evalsha_ro') && args[0] !== undefined) {
      return { name, args: [serverSha(String(args[0])), ...args.slice(1)] };
    }
    if (name === 'script' && sub === 'load' && typeof args[1] === 'string') {
      const original = args[1];
      const clientSha = sha1(original);
      return {
        name,
        args: ['load', stripShebang(original)],
        after: (reply) => {
          shaMap.set(clientSha, isBuffer(reply) ? reply.toString('utf8') : String(reply));
          return clientSha;
        },
      };
    }
    if (name === 'script' && sub === 'exists') {
      return { name, args: ['exists', ...args.slice(1).map((sha) => serverSha(String(sha)))] };
    }
    if (name === 'script' && sub === 'flush') {
      return {
        name,
        args,
        after: (reply) => {
          shaMap.clear();
          return reply;
        },
      };
    }
    return { name, args };
  }

  async function run(command: Json): Promise<unknown> {
    const prepared = prepare(command);
    const reply = await redis.callBuffer(prepared.name, prepared.args);
    return prepared.after ? prepared.after(reply) : reply;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${token}`) {
      await readBody(req);
      return send(res, 401, { error: 'Unauthorized' });
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'ERR only POST is supported by this stand-in' });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';

    let body: Json;
    try {
      body = JSON.parse(await readBody(req)) as Json;
    } catch {
      return send(res, 400, { error: 'ERR failed to parse the request body as JSON' });
    }

    if (path === '/') {
      try {
        return send(res, 200, { result: encodeResult(await run(body), base64) });
      } catch (error) {
        return send(res, error instanceof HttpError ? error.status : 400, { error: errorMessage(error) });
      }
    }

    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(body) || body.length === 0)
        return send(res, 400, { error: 'ERR a pipeline must be a non-empty array of commands' });
      const commands = body;
      if (path === '/pipeline') {
        // Sent back to back on one connection: ioredis keeps them in order, like Upstash's pipeline.
        const results = await Promise.all(
          commands.map((command) =>
            run(command).then(
              (reply): Json => ({ result: encodeResult(reply, base64) }),
              (error: unknown): Json => ({ error: errorMessage(error) }),
            ),
          ),
        );
        return send(res, 200, results);
      }
      let prepared: Prepared[];
      try {
        prepared = commands.map(prepare);
      } catch (error) {
        return send(res, error instanceof HttpError ? error.status : 400, { error: errorMessage(error) });
      }
      const multi = redis.multi();
      for (const { name, args } of prepared) multi.callBuffer(name, args);
      try {
        const replies = (await multi.exec()) ?? [];
        return send(
          res,
          200,
          replies.map(([error, reply], i): Json => {
            if (error) return { error: error.message };
            const after = prepared[i]?.after;
            return { result: encodeResult(after ? after(reply) : reply, base64) };
          }),
        );
      } catch (error) {
        // EXECABORT: a command was refused while queueing, nothing ran.
        return send(res, 400, { error: errorMessage(error) });
      }
    }

    return send(res, 404, { error: `ERR ${path} is not supported by this stand-in` });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: errorMessage(error) });
      else res.destroy();
    });
  });
  await listen(server);
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commandLog,
    async close() {
      await closeServer(server);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export interface HangingServer {
  url: string;
  /** Requests received (and never answered) so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** An HTTP server that accepts connections and requests and never answers: a store that hangs. */
export async function startHangingServer(): Promise<HangingServer> {
  let requests = 0;
  const server = createServer((req) => {
    requests += 1;
    req.resume();
  });
  await listen(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close: () => closeServer(server),
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets (and requests left hanging on purpose) would hold close() open.
    server.closeAllConnections();
  });
}
