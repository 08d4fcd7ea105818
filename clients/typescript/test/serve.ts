// The test app (test/helpers/app.ts: the Worker's app on a real PostgreSQL) behind a real Node HTTP
// server on a free loopback port, so the client is tested over the network as an integrator uses it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../../test/helpers/app';

export interface Served {
  baseUrl: string;
  close(): Promise<void>;
}

export async function serveTestApp(t: TestApp): Promise<Served> {
  // Node's request in, a fetch Request to the app, its Response back out.
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await t.send(req.url ?? '/', { method: req.method, headers, body });
    answer.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.writeHead(answer.status);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
