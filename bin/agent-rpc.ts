#!/usr/bin/env node
import { runCli } from '../src/cli/index.js';
import { builtinPlugins } from '../transports/plugins.js';
import { dropKafkajsNegativeTimeoutWarning } from './known-warnings.js';

dropKafkajsNegativeTimeoutWarning();

// `agent-rpc audit list | head` closes stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await runCli(
  process.argv.slice(2),
  {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  },
  builtinPlugins,
);
process.exitCode = code;
