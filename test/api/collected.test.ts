// A program that is garbage collected releases what its back end holds, as `dispose()` does
// (src/index.ts registers every compiled program with a FinalizationRegistry).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import { Compiler } from '../../src/driver/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const originalDispose = Compiler.prototype.dispose;
afterEach(() => {
  Compiler.prototype.dispose = originalDispose;
});

/** Compiles and runs a program in a scope of its own, so nothing here keeps it alive. */
async function runAndDrop(): Promise<void> {
  const program = compile('def main(xs: f64[n]):\n  return map(lam x: x + 1.0, xs)\n');
  const { result } = await program.run({ xs: new Float64Array([1, 2]) });
  expect(result).toEqual({ data: new Float64Array([2, 3]), shape: [2] });
}

it('disposes the compiled code of a program nobody refers to any more', { retry: 2, timeout: 20_000 }, async () => {
  let disposed = 0;
  Compiler.prototype.dispose = async function dispose(this: Compiler) {
    disposed++;
    return originalDispose.call(this);
  };
  await runAndDrop();
  // Finalizers run in a task after a collection that found the program dead.
  for (let k = 0; k < 50 && disposed === 0; k++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(disposed).toBeGreaterThan(0);
});
