// The benchmark's "region" (scripts/bench): a child process of `npm run bench` holding what the Workers
// call: the Upstash REST stand-in (over the machine's Redis), the TCP relays the Workers' database and
// Upstash URLs point at, and the delay proxies in front of PostgreSQL and Redis. It runs apart from the
// load generator so that serving the rate limiter does not slow down the clock that times the Workers.
// Driven over IPC by scripts/bench/remote-client.ts.
import { rmSync } from 'node:fs';
import { startUpstashRestServer, type UpstashRestServer } from '../../test/tooling/upstash-rest-server';
import { countSequential, startTcpProxy, type TcpProxy } from './tcp-proxy';

export interface RemoteInit {
  pgPort: number;
  redisUrl: string;
  delayMs: number;
}

export interface RemotePorts {
  /** The Workers' database port (their Hyperdrive binding): relays to the setting's database. */
  dbFrontPort: number;
  /** The Workers' Upstash REST URL: relays to the setting's stand-in. */
  upstashUrl: string;
  upstashToken: string;
  /** PostgreSQL seen from far away: the delay proxy a distant pooler connects to. */
  pgDistantPort: number;
}

/** What a counted request sent and waited for (see RemoteRequest 'report'). */
export interface RequestCount {
  /** New database connections the Worker opened. */
  connections: number;
  /** SQL statements the Worker sent (Parse and Query messages). */
  statements: string[];
  /** Redis commands the Upstash stand-in ran for it. */
  redisCommands: number;
  /** Round trips through the delay proxies (PostgreSQL and Redis) answered before the request's answer, parallel ones counted once. */
  sequentialRoundTrips: number;
  /** Every round trip through the delay proxies answered before the request's answer, parallel ones included. */
  roundTrips: number;
  /** Sequential round trips answered after the request's answer (background work such as the request log). */
  roundTripsAfter: number;
  /** When the answer arrived, in ms from the request's start. */
  answeredAt: number;
  /** Every round trip through the delay proxies, in ms from the request's start (for --trace). */
  timeline: { via: 'postgres' | 'redis'; kind: string; start: number; end: number }[];
}

export type RemoteRequest =
  | { op: 'init'; init: RemoteInit }
  | { op: 'route'; dbPort: number; distant: boolean }
  | { op: 'begin' }
  /** `at`: when the answer arrived, as performance.timeOrigin + performance.now() in the caller (clocks of one machine). */
  | { op: 'end'; at: number }
  | { op: 'report' }
  | { op: 'adopt'; orphans: Orphans }
  | { op: 'stop' };

/** What to stop if the bench dies without cleaning up (killed with SIGKILL, say). */
export interface Orphans {
  /** Process groups (wrangler and its workerd). */
  groups: number[];
  /** Single processes, with the signal that stops each quickly. */
  processes: { pid: number; signal: NodeJS.Signals }[];
  /** Folder to remove once they are gone. */
  dir?: string;
}

interface State {
  dbFront: TcpProxy;
  upstashFront: TcpProxy;
  pgDistant: TcpProxy;
  redisDistant: TcpProxy;
  nearStandIn: UpstashRestServer;
  farStandIn: UpstashRestServer;
  distant: boolean;
  window: { start: number; end: number; commandsBefore: number };
}

let state: State | undefined;
let orphans: Orphans = { groups: [], processes: [] };

const portOf = (url: string) => Number(new URL(url).port);

async function init({ pgPort, redisUrl, delayMs }: RemoteInit): Promise<RemotePorts> {
  const redis = new URL(redisUrl);
  const pgDistant = await startTcpProxy({ target: { host: '127.0.0.1', port: pgPort }, delayMs, protocol: 'postgres' });
  const redisDistant = await startTcpProxy({ target: { host: redis.hostname, port: Number(redis.port || 6379) }, delayMs });
  const farRedis = new URL(redisUrl);
  farRedis.hostname = '127.0.0.1';
  farRedis.port = String(redisDistant.port);
  const nearStandIn = await startUpstashRestServer({ redisUrl });
  const farStandIn = await startUpstashRestServer({ redisUrl: farRedis.toString(), token: nearStandIn.token });
  const dbFront = await startTcpProxy({ target: { host: '127.0.0.1', port: pgPort }, protocol: 'postgres' });
  const upstashFront = await startTcpProxy({ target: { host: '127.0.0.1', port: portOf(nearStandIn.url) } });
  state = {
    dbFront,
    upstashFront,
    pgDistant,
    redisDistant,
    nearStandIn,
    farStandIn,
    distant: false,
    window: { start: 0, end: 0, commandsBefore: 0 },
  };
  return {
    dbFrontPort: dbFront.port,
    upstashUrl: `http://127.0.0.1:${upstashFront.port}`,
    upstashToken: nearStandIn.token,
    pgDistantPort: pgDistant.port,
  };
}

function mustHave(): State {
  if (!state) throw new Error('remote: init first');
  return state;
}

const recorders = (s: State) => [s.dbFront, s.pgDistant, s.redisDistant];
const standIn = (s: State) => (s.distant ? s.farStandIn : s.nearStandIn);

async function handle(request: RemoteRequest): Promise<unknown> {
  switch (request.op) {
    case 'init':
      return init(request.init);
    case 'route': {
      const s = mustHave();
      s.distant = request.distant;
      s.dbFront.target = { host: '127.0.0.1', port: request.dbPort };
      s.upstashFront.target = { host: '127.0.0.1', port: portOf(standIn(s).url) };
      // Kept-alive connections would still lead to the previous setting's servers.
      s.dbFront.dropConnections();
      s.upstashFront.dropConnections();
      return null;
    }
    case 'begin': {
      const s = mustHave();
      for (const proxy of recorders(s)) {
        proxy.clear();
        proxy.recording = true;
      }
      s.window = { start: performance.now(), end: Number.POSITIVE_INFINITY, commandsBefore: standIn(s).commandLog.length };
      return null;
    }
    case 'end': {
      mustHave().window.end = request.at - performance.timeOrigin;
      return null;
    }
    case 'report': {
      const s = mustHave();
      for (const proxy of recorders(s)) proxy.recording = false;
      const { start, end, commandsBefore } = s.window;
      const turns = [...s.pgDistant.turns, ...s.redisDistant.turns].filter((turn) => turn.start >= start);
      const waitedFor = turns.filter((turn) => turn.end <= end);
      const count: RequestCount = {
        connections: s.dbFront.connections,
        statements: s.dbFront.statements.map((statement) => statement.sql),
        redisCommands: standIn(s).commandLog.length - commandsBefore,
        // Waited for: answered before the answer left (background work started as it left ends a round trip later).
        sequentialRoundTrips: countSequential(waitedFor),
        roundTrips: waitedFor.length,
        roundTripsAfter: countSequential(turns.filter((turn) => turn.end > end)),
        answeredAt: end - start,
        timeline: [
          ...s.pgDistant.turns.map((turn) => ({ via: 'postgres' as const, turn })),
          ...s.redisDistant.turns.map((turn) => ({ via: 'redis' as const, turn })),
        ]
          .sort((a, b) => a.turn.start - b.turn.start)
          .map(({ via, turn }) => ({ via, kind: turn.kind, start: turn.start - start, end: turn.end - start })),
      };
      return count;
    }
    case 'adopt': {
      orphans = request.orphans;
      return null;
    }
    case 'stop': {
      orphans = { groups: [], processes: [] }; // a clean stop: the bench stops them itself
      const s = state;
      state = undefined;
      if (s) {
        await Promise.all([...recorders(s), s.upstashFront].map((proxy) => proxy.close()));
        await Promise.all([s.nearStandIn.close(), s.farStandIn.close()]);
      }
      return null;
    }
  }
}

process.on('message', (message: { id: number; request: RemoteRequest }) => {
  handle(message.request).then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

// The bench died without saying stop: nothing it started may outlive it.
process.on('disconnect', () => {
  const { groups, processes, dir } = orphans;
  for (const group of groups) signal(-group, 'SIGTERM');
  for (const { pid, signal: name } of processes) signal(pid, name);
  setTimeout(
    () => {
      for (const group of groups) signal(-group, 'SIGKILL');
      if (dir) rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    },
    groups.length + processes.length > 0 ? 3_000 : 0,
  );
});
