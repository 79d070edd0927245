#!/usr/bin/env node
// The command-line entry point: the compiled CLI lives in dist/ (built by `npm ci` through the
// package's `prepare` script).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
