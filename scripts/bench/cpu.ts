// CPU time of the benchmark's processes (Linux /proc, nanosecond schedstat of each thread): CPU
// milliseconds per request hold up far better than requests per second when other jobs share the
// machine, since time spent waiting for a core is not counted. Without /proc these read NaN ("-").
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** CPU ms of one process: the sum over its threads of /proc/<pid>/task/<tid>/schedstat (ns on CPU). */
function cpuMsOf(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return Number.NaN;
  }
  return ns / 1e6;
}

/** Name and process group of a process, from /proc/<pid>/stat. */
function identify(pid: number): { comm: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may itself hold spaces or parentheses; pgrp is the 3rd field after it.
    const close = text.lastIndexOf(')');
    return { comm: text.slice(text.indexOf('(') + 1, close), pgrp: Number(text.slice(close + 2).split(' ')[2]) };
  } catch {
    return undefined;
  }
}

/** CPU ms so far of the processes of process group `pgid` named `comm` (e.g. "workerd"); NaN without /proc. */
export function groupCpuMs(pgid: number, comm: string): number {
  if (!existsSync('/proc/self/task')) return Number.NaN;
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const id = identify(Number(entry));
    if (id && id.pgrp === pgid && id.comm === comm) total += cpuMsOf(Number(entry)) || 0;
  }
  return total;
}

/** CPU ms so far of one process (all its threads); NaN without /proc. */
export function processCpuMs(pid: number): number {
  return cpuMsOf(pid);
}
