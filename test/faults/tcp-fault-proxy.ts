// A TCP proxy in front of an HTTP stand-in (the Upstash REST server, QStash) whose fault can be switched
// while tests run:
//   - 'pass': bytes go through both ways;
//   - 'hang': connections are accepted and requests read, and nothing ever answers (a store that hangs);
//   - { delayMs }: answers arrive, each chunk that much later (a slow store);
//   - 'down': every connection is reset as soon as it opens (an outage: the client sees a socket error).
// Switching closes every open connection, so a client's keep-alive connection cannot carry the old
// behaviour past the switch.
import { connect, createServer, type Socket } from 'node:net';

export type TcpFault = 'pass' | 'hang' | 'down' | { delayMs: number };

export interface TcpFaultProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  readonly fault: TcpFault;
  setFault(fault: TcpFault): void;
  /** Connections accepted since start. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(targetUrl: string): Promise<TcpFaultProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let fault: TcpFault = 'pass';
  let connections = 0;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = createServer((client) => {
    connections++;
    track(client);
    const current = fault;
    if (current === 'down') return client.resetAndDestroy();
    if (current === 'hang') return void client.resume();
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    track(upstream);
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    if (current === 'pass') {
      upstream.on('close', () => client.destroy());
      upstream.pipe(client);
      return;
    }
    // Slow: every chunk, and the end, that much later.
    const later = (work: () => void) => setTimeout(work, current.delayMs);
    upstream.on('data', (chunk) => later(() => client.writable && client.write(chunk)));
    upstream.on('close', () => later(() => client.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    get fault() {
      return fault;
    },
    setFault(next) {
      fault = next;
      for (const socket of sockets) socket.destroy();
    },
    get connections() {
      return connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
