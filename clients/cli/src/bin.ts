#!/usr/bin/env node
// `npx @brand-admin/cli <command>`: the process around runCli (argv, environment, output, Ctrl-C).
import { runCli } from './cli';

const stop = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130); // a second Ctrl-C does not wait for the forward under way
  interrupted = true;
  stop.abort();
});
process.on('SIGTERM', () => stop.abort());

runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  signal: stop.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
