// pg's messages of one statement leave in one socket write in workerd (src/platform/db/client.ts,
// coalesceWrites): pg corks around them, and pg-cloudflare's socket, which has no cork, is given one.
import { describe, expect, it } from 'vitest';
import { type CorkableStream, coalesceWrites } from '../../src/platform/db/client';

function socket(withCork = false) {
  const writes: { data: string; rest: unknown[] }[] = [];
  const stream: CorkableStream = {
    write(data, ...rest) {
      writes.push({ data: typeof data === 'string' ? data : Buffer.from(data).toString(), rest });
      return true;
    },
  };
  if (withCork) Object.assign(stream, { cork() {}, uncork() {} });
  return { stream, writes };
}

describe('coalesceWrites', () => {
  it('sends what is written while corked as one write, in order, on the last uncork', () => {
    const { stream, writes } = socket();
    coalesceWrites(stream);
    stream.cork!();
    stream.write(Buffer.from('P'));
    stream.cork!(); // nested, as a stream allows
    stream.write(Buffer.from('B'));
    stream.uncork!();
    stream.write(Buffer.from('E'));
    expect(writes).toEqual([]);
    stream.uncork!();
    expect(writes).toEqual([{ data: 'PBE', rest: [] }]);
    stream.uncork!(); // one too many changes nothing
    expect(writes).toHaveLength(1);
  });

  it('writes directly when uncorked, and a write with a callback first sends what is buffered', () => {
    const { stream, writes } = socket();
    coalesceWrites(stream);
    stream.write(Buffer.from('Q'));
    stream.cork!();
    stream.write(Buffer.from('P'));
    const done = () => {};
    stream.write(Buffer.from('X'), done);
    stream.uncork!();
    expect(writes).toEqual([
      { data: 'Q', rest: [] },
      { data: 'P', rest: [] },
      { data: 'X', rest: [done] },
    ]);
  });

  it('leaves a socket that can cork (Node) alone', () => {
    const { stream } = socket(true);
    const { cork, write } = stream;
    coalesceWrites(stream);
    expect(stream.cork).toBe(cork);
    expect(stream.write).toBe(write);
  });
});
