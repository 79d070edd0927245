#!/usr/bin/env node
// The command-line entry point: the compiled CLI lives in dist/ (built by `npm ci` through the
// package's `prepare` script).
import { main } from '../dist/cli/main.js';

// A reader that closes the pipe early (`arrayfuse run … | head -1`) has read all it wants:
// stop quietly, as Unix tools do, instead of dying on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await main(process.argv.slice(2));
