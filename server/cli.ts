#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { runCli } from './cli/run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readStdin: () => text(process.stdin),
  now: () => new Date(),
});
