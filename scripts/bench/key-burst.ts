// npm run bench:burst -- [--url http://127.0.0.1:8787] [--requests 110] [--key <raw key> | --forged]
// Fires N concurrent GET /api/v1/me at a running server (npm run dev) and prints the status counts.
// Without --key it signs in as the demo owner and creates a key first. Loopback only: it refuses any
// other host, so it can never load someone else's server.
import { parseArgs } from 'node:util';
import { DEMO_LOGINS, DEMO_PASSWORD } from '../seed';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8787' },
    requests: { type: 'string', default: '110' },
    key: { type: 'string' },
    forged: { type: 'boolean', default: false },
  },
});
const base = new URL(values.url!);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname)) throw new Error('bench:burst only targets a local server');
const count = Number(values.requests);

async function createKey(): Promise<string> {
  const signIn = await fetch(new URL('/auth/signin', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: DEMO_LOGINS[0].email, password: DEMO_PASSWORD }),
  });
  const token = ((await signIn.json()) as { data: { token: string } }).data.token;
  const created = await fetch(new URL('/api-keys', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: `burst ${new Date().toISOString()}` }),
  });
  if (created.status !== 201)
    throw new Error(`creating a key answered ${created.status}: ${await created.text()} (revoke one: 5 active keys at most)`);
  return ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
}

const key = values.forged ? `svc_live_${'f'.repeat(49)}` : (values.key ?? (await createKey()));
const started = performance.now();
const statuses = await Promise.all(
  Array.from({ length: count }, async () => {
    const res = await fetch(new URL('/api/v1/me', base), { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    return res.status;
  }),
);
const counts: Record<number, number> = {};
for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
console.log(
  JSON.stringify({
    requests: count,
    key: values.forged ? 'forged' : 'valid',
    statuses: counts,
    ms: Math.round(performance.now() - started),
  }),
);
