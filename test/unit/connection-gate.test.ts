import { describe, expect, it } from 'vitest';
import { ConnectionGate, ConnectionGateTimeout } from '../../src/platform/db/connection-gate';

describe('ConnectionGate', () => {
  it('lets `max` holders in at once, queues the rest first come first served, and frees slots on release', async () => {
    const gate = new ConnectionGate(2);
    const a = await gate.acquire(1000);
    const b = await gate.acquire(1000);
    const order: string[] = [];
    const c = gate.acquire(1000).then((release) => {
      order.push('c');
      return release;
    });
    const d = gate.acquire(1000).then((release) => {
      order.push('d');
      return release;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(gate.inUse).toBe(2);
    expect(gate.queued).toBe(2);
    a();
    a(); // releasing twice frees one slot only
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect(gate.inUse).toBe(2);
    b();
    (await d)();
    releaseC();
    expect(gate.inUse).toBe(0);
    expect(order).toEqual(['c', 'd']);
  });

  it('gives up after waitMs with a class-08 error (the API answers 503), and leaves the queue clean', async () => {
    const gate = new ConnectionGate(1);
    const held = await gate.acquire(1000);
    const started = Date.now();
    const error = await gate.acquire(60).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionGateTimeout);
    expect((error as ConnectionGateTimeout).code).toBe('08001');
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(gate.queued).toBe(0);
    held();
    expect(gate.inUse).toBe(0);
    (await gate.acquire(10))();
  });
});
