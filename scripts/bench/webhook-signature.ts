// npx tsx scripts/bench/webhook-signature.ts [N]
//
// The CPU one delivery's signatures cost, two ways (issue 27: the standardwebhooks package was allowed
// "if it costs the Worker no more CPU per delivery"): our WebCrypto module
// (clients/typescript/src/webhook-signature.ts, both headers) against the standardwebhooks package's
// Webhook.sign (pure JavaScript HMAC, fast-sha256) for the webhook-signature header plus our
// X-Service-Signature, which the package does not make. One secret, a typical 200-byte body; N rounds
// each (10,000 by default), after a warm-up. In Node: its WebCrypto hands every HMAC to the libuv thread
// pool, which a small body pays for, so Node favours the package's pure-JavaScript HMAC more than workerd
// does (docs/webhooks.md, "Signing: one implementation", has both sets of figures).

import { Webhook } from 'standardwebhooks';
import { serviceSignatureHeader, standardSignatureHeader } from '../../clients/typescript/src/webhook-signature';

const N = Number(process.argv[2] ?? 10_000);
const secret = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
const body = JSON.stringify({
  id: '0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10',
  type: 'order.created',
  createdAt: '2026-01-01T00:00:00.000Z',
  data: { orderId: '5f0c2a3e-8d1b-4f6a-9c7e-1a2b3c4d5e6f', patientId: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d' },
});
const id = 'evt_0b6f6d4e-4c1a-4a53-9a43-2f1f3c1a7e10_5f0c2a3e-8d1b-4f6a-9c7e-1a2b3c4d5e6f';
const t = 1_767_225_600;
const webhook = new Webhook(secret);

const ours = () => Promise.all([serviceSignatureHeader([secret], t, body), standardSignatureHeader([secret], id, t, body)]);
const theirs = () => Promise.all([serviceSignatureHeader([secret], t, body), webhook.sign(id, new Date(t * 1000), body)]);

// Same bytes both ways, or the comparison means nothing.
const [a, b] = await Promise.all([ours(), theirs()]);
if (a[1] !== b[1]) throw new Error(`signatures differ: ${a[1]} vs ${b[1]}`);

async function time(name: string, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 1_000; i++) await run();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < N; i++) await run();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const perCall = ((used.user + used.system) / N).toFixed(2);
  console.log(`${name}: ${N} deliveries, ${wall.toFixed(0)} ms wall, ${perCall} µs CPU per delivery`);
  return (used.user + used.system) / N;
}

// The webhook-signature header alone, the part the package would replace; each pair in both orders.
const oursStandard = () => standardSignatureHeader([secret], id, t, body);
const theirsStandard = async () => webhook.sign(id, new Date(t * 1000), body);
const theirsCpu = await time('standardwebhooks + ours (X-Service)', theirs);
const oursCpu = await time('WebCrypto (ours, both headers)     ', ours);
const theirsStandardCpu = await time('webhook-signature: standardwebhooks', theirsStandard);
const oursStandardCpu = await time('webhook-signature: WebCrypto (ours)', oursStandard);
console.log(
  `ratio standardwebhooks/ours: ${(theirsCpu / oursCpu).toFixed(2)} per delivery, ${(theirsStandardCpu / oursStandardCpu).toFixed(2)} for webhook-signature alone`,
);
