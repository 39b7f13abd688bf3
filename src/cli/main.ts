#!/usr/bin/env node
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
process.exitCode = code;
