// Shared by the organization area's tests: a request through the app with Worker variables (the
// domain and SMS adapters read theirs from the env handed to the request), checked against its
// declared response like t.request().
import type { TestApp } from '../../helpers/app';
import { assertDeclaredResponse } from '../../helpers/strict-response';

let ip = 0;

export async function withEnv(
  t: TestApp,
  path: string,
  options: { key: string; body?: unknown; method?: string; env: Record<string, string> },
) {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { 'x-api-key': options.key, 'cf-connecting-ip': `10.250.${(++ip >> 8) & 255}.${ip & 255}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await t.app.request(
    path,
    { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) },
    options.env,
  );
  await assertDeclaredResponse(t.app, { method, path }, res);
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are loosely typed in tests, for assertions
  return res as Omit<Response, 'json'> & { json(): Promise<any> };
}
