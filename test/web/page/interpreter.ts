// The reference interpreter of the browser differential tests, in a Web Worker of the harness
// page (test/web/page/harness.ts): the interpreter is pure JavaScript and, on 70000-element
// cases, as costly as compiling the fused code, so it runs on another core while the page's
// thread compiles and dispatches kernels. Each message is one case (wire data in, wire data
// out, ./wire.ts); the worker answers in order.

import { Compiler } from '../../../src/driver/index.js';
import type { WireCase, WireOutcome } from './wire.js';
import { decodedInputs, errorOf, namedInputs, resultsOfRun } from './runs.js';

interface Job {
  readonly id: number;
  readonly c: WireCase;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const { id, c } = event.data;
  let outcome: WireOutcome;
  try {
    const compiler = new Compiler(c.source, { ...c.options, fileName: c.fileName ?? 'case.fuse', backend: 'js', threads: 1 });
    const run = await compiler.execute(namedInputs(compiler, decodedInputs(c)), { interpret: true });
    outcome = { ok: true, results: resultsOfRun(run) };
  } catch (e) {
    outcome = { ok: false, error: errorOf(e) };
  }
  self.postMessage({ id, outcome });
};
