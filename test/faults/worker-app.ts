// The app exactly as the Worker composes it (createApp(workerServices, { areasOnDemand: true }): configuration read from the
// Worker's variables, a database opened per request through the isolate's connection gate and closed
// in waitUntil, the providers from the one door), run in Node. The faults suite uses it rather than
// the test harness's shared database so that a fault hits what production would run: the per-request
// pool, the gate, the driver chosen from the variables.
import { createApp } from '../../src/app';
import type { Env } from '../../src/config';
import { workerServices } from '../../src/platform/services';
import type { TestResponse } from '../helpers/app';
import { assertDeclaredResponse } from '../helpers/strict-response';

export interface WorkerRequest {
  method?: string;
  key?: string;
  token?: string;
  /** JSON-encoded unless a string or FormData. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface WorkerApp {
  app: ReturnType<typeof createApp>;
  env: Env;
  /** One request; resolves once the work it left in waitUntil is done too (its database closed). */
  request(path: string, request?: WorkerRequest): Promise<TestResponse>;
  /** The same for a request built by the caller (a stand-in calling back), without the response check. */
  fetch(path: string, init: RequestInit): Promise<Response>;
  /** The answer as soon as it is made, and the work it left in waitUntil, still running. */
  answer(path: string, request?: WorkerRequest): Promise<{ res: TestResponse; background: Promise<unknown> }>;
}

let address = 0;

/** The RequestInit of a request: its own client address, the key or token, a JSON body unless a string or FormData. */
export function requestInit({ method, key, token, body, headers = {} }: WorkerRequest = {}): RequestInit {
  address++;
  const h: Record<string, string> = { 'cf-connecting-ip': `10.66.${(address >> 8) & 255}.${address & 255}`, ...headers };
  if (key) h['x-api-key'] = key;
  if (token) h.authorization = `Bearer ${token}`;
  const init: RequestInit = { method: method ?? (body === undefined ? 'GET' : 'POST'), headers: h };
  if (body !== undefined) {
    if (typeof body === 'string' || body instanceof FormData) init.body = body;
    else {
      init.body = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
  }
  return init;
}

export function workerApp(env: Env): WorkerApp {
  const app = createApp(workerServices, { areasOnDemand: true });
  const send = async (path: string, init: RequestInit) => {
    const waiting: Promise<unknown>[] = [];
    const ctx = { waitUntil: (work: Promise<unknown>) => waiting.push(work), passThroughOnException() {}, props: {} };
    const res = await app.request(path, init, env, ctx as unknown as ExecutionContext);
    return { res, background: Promise.allSettled(waiting) };
  };
  const fetch = async (path: string, init: RequestInit) => {
    const { res, background } = await send(path, init);
    await background;
    return res;
  };
  return {
    app,
    env,
    fetch,
    async answer(path, request = {}) {
      const init = requestInit(request);
      const { res, background } = await send(path, init);
      await assertDeclaredResponse(app, { method: init.method!, path }, res);
      return { res: res as TestResponse, background };
    },
    async request(path, request = {}) {
      const init = requestInit(request);
      const res = await fetch(path, init);
      await assertDeclaredResponse(app, { method: init.method!, path }, res);
      return res as TestResponse;
    },
  };
}
