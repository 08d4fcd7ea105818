// A local stand-in for Neon's WebSocket proxy, so the Neon serverless driver (@neondatabase/serverless)
// can talk to a plain PostgreSQL in tests. The driver opens
//   ws[s]://<neonConfig.wsProxy>?address=<host>:<port>
// when wsProxy is a string (see wsProxyAddrForHost in the driver), or whatever a wsProxy function
// returns. Each WebSocket becomes one TCP connection to that address; binary frames are piped both ways
// untouched (the driver speaks the raw Postgres wire protocol inside them), and when either side closes
// the other is closed too.

import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { neonConfig } from '@neondatabase/serverless';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

export interface NeonWsProxy {
  /** Port the proxy listens on (127.0.0.1). */
  port: number;
  /** Value for `neonConfig.wsProxy`: host:port/v1 (no scheme; set useSecureWebSocket = false). */
  wsProxy: string;
  /** WebSocket connections accepted since start. */
  readonly totalConnections: number;
  /** WebSocket connections currently open. */
  readonly openConnections: number;
  /** Stops listening and closes every open tunnel. */
  close(): Promise<void>;
}

export interface NeonWsProxyOptions {
  /** Which database addresses may be reached. Default: loopback only. */
  allow?: (host: string, port: number) => boolean;
}

/**
 * Points the Neon serverless driver at a proxy (neonConfig is module state of @neondatabase/serverless,
 * shared with openDatabase): plain ws:// to the local proxy, no TLS to the local PostgreSQL (the
 * driver's default), and no pipelining, which assumes cleartext password auth.
 */
export function useNeonWsProxy(wsProxy: string) {
  neonConfig.webSocketConstructor = WebSocket;
  neonConfig.wsProxy = wsProxy; // -> ws://127.0.0.1:<port>/v1?address=<pg host>:<pg port>
  neonConfig.useSecureWebSocket = false;
  neonConfig.forceDisablePgSSL = true;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Splits "host:port" (IPv6 hosts in brackets) from the proxy URL's `address` parameter. */
export function parseAddress(address: string | null): { host: string; port: number } | null {
  if (!address) return null;
  const colon = address.lastIndexOf(':');
  if (colon <= 0) return null;
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  if (!host || !Number.isInteger(port) || port <= 0 || port > 65535) return null;
  return { host, port };
}

// Typed here: @cloudflare/workers-types 5 declares the global `Buffer` as `any`, which drops isBuffer's narrowing.
const isBuffer: (value: unknown) => value is Buffer = Buffer.isBuffer;

function toBuffer(data: RawData): Buffer {
  if (isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export async function startNeonWsProxy(options: NeonWsProxyOptions = {}): Promise<NeonWsProxy> {
  const allow = options.allow ?? ((host) => LOOPBACK.has(host));
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const tunnels = new Set<{ ws: WebSocket; socket: Socket }>();
  let total = 0;

  wss.on('connection', (ws, request) => {
    const url = new URL(request.url ?? '/', 'http://proxy');
    const target = parseAddress(url.searchParams.get('address'));
    if (!target) return ws.close(1008, 'expected ?address=host:port');
    if (!allow(target.host, target.port)) return ws.close(1008, `address ${target.host}:${target.port} not allowed`);
    total++;

    const socket = connect({ host: target.host, port: target.port });
    socket.setNoDelay(true);
    const tunnel = { ws, socket };
    tunnels.add(tunnel);

    // Frames that arrive before the TCP connection is up are buffered by the socket itself.
    ws.on('message', (data) => {
      if (!socket.destroyed) socket.write(toBuffer(data));
    });
    socket.on('data', (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    });

    // Either side ending ends the other. A TCP error (refused, reset) closes the WebSocket, which the
    // driver reports as a connection error.
    const closeWebSocket = () => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    socket.on('error', closeWebSocket);
    socket.on('close', () => {
      tunnels.delete(tunnel);
      closeWebSocket();
    });
    ws.on('error', () => socket.destroy());
    ws.on('close', () => {
      tunnels.delete(tunnel);
      socket.end();
      // A server that ignores the FIN must not keep the socket around.
      setTimeout(() => socket.destroy(), 1_000).unref();
    });
  });

  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  const { port } = wss.address() as AddressInfo;

  return {
    port,
    wsProxy: `127.0.0.1:${port}/v1`,
    get totalConnections() {
      return total;
    },
    get openConnections() {
      return tunnels.size;
    },
    close() {
      for (const { ws, socket } of tunnels) {
        ws.terminate();
        socket.destroy();
      }
      tunnels.clear();
      return new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
