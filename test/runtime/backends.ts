// The differential tests' view of the back ends: every registered one (src/runtime/backends.ts),
// for `describe.each(backends)('$name back end', …)` as jax-js does, and a run that compiles,
// runs once and disposes, awaiting whatever the back end returns (a synchronous back end's
// values, an asynchronous one's promises).

import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { Plan } from '../../src/plan/types.js';
import {
  type CompileOptions, type ExecutionBackend, type RegisteredBackend, registeredBackends, type RunOptions, type RunResult,
} from '../../src/runtime/index.js';

/** Every registered back end: a back end added to the registry is tested by these bodies. */
export const backends: readonly RegisteredBackend[] = registeredBackends;

/** Compiles `program` for `plan` with `backend`, runs it once on `inputs`, and disposes it. */
export async function runOn(
  backend: ExecutionBackend,
  program: Program,
  plan: Plan,
  inputs: readonly InterfaceValue[],
  options: CompileOptions & RunOptions = {},
): Promise<RunResult> {
  const exe = await backend.compile(program, plan, options);
  try {
    return await exe.run(inputs, options);
  } finally {
    exe.dispose();
  }
}
