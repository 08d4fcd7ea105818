// The rehearsal's HTTP client: real HTTP to the Worker, every answer checked against the OpenAPI
// document the deployed Worker itself serves (the strict rules of test/helpers/strict-response.ts:
// the schema its operation declares for the status, no undeclared key anywhere).
import { declaredJsonSchema, findOperation, schemaProblems } from '../../test/helpers/strict-response';

type Document = Parameters<typeof findOperation>[0];

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked against the document, then read freely
  body: any;
  text: string;
}

export interface CallOptions {
  key?: string;
  token?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /** The status this call must answer (a failure names the call and shows the body). */
  expect?: number;
}

let address = 0;

export class RehearsalClient {
  /** Every call made: method, path, status (the report counts them). */
  readonly calls: { method: string; path: string; status: number }[] = [];
  private document: Document | null = null;

  constructor(private readonly base: () => string) {}

  /** Loads the OpenAPI document from the Worker (GET /api/v1/openapi.json). */
  async loadDocument(): Promise<Document> {
    const res = await fetch(`${this.base()}/api/v1/openapi.json`, { headers: { 'cf-connecting-ip': '203.0.113.1' } });
    if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
    this.document = (await res.json()) as Document;
    return this.document;
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    address++;
    // A client address per call, as Cloudflare's edge sets it (the root-route limits count per address).
    const headers: Record<string, string> = { 'cf-connecting-ip': `198.51.100.${(address % 250) + 1}`, ...options.headers };
    if (options.key) headers['x-api-key'] = options.key;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.base()}${path}`, { method, headers, body });
    const text = await res.text();
    this.calls.push({ method, path, status: res.status });
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    if (options.expect !== undefined && res.status !== options.expect) {
      throw new Error(`${method} ${path}: expected ${options.expect}, answered ${res.status}: ${text.slice(0, 600)}`);
    }
    this.check(method, path, res, parsed, text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  private check(method: string, path: string, res: Response, body: unknown, text: string) {
    if (!this.document || method === 'HEAD' || res.status === 204 || res.status === 304) return;
    const found = findOperation(this.document, method, path);
    if (!found) return;
    const schema = declaredJsonSchema(found.operation, res.status);
    if (!schema) {
      const declared = Object.keys((found.operation.responses as Record<string, unknown>) ?? {});
      const family = `${String(res.status)[0]}XX`;
      // An operation that answers a status it does not declare is as wrong as a body that does not match.
      if (!declared.some((status) => status === String(res.status) || status === family || status === 'default'))
        throw new Error(`${method} ${found.path} → ${res.status}: the document declares no such response (${text.slice(0, 200)})`);
      return;
    }
    const where = `${method} ${found.path} → ${res.status}`;
    if (!/^application\/(.+\+)?json\b/i.test(res.headers.get('content-type') ?? '')) {
      throw new Error(`${where}: declared application/json, sent "${res.headers.get('content-type')}"`);
    }
    const problems = schemaProblems(this.document, schema, body);
    if (problems.length) throw new Error(`${where}: the body does not match its declared schema:\n  ${problems.slice(0, 20).join('\n  ')}`);
  }
}
