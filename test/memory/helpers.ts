// Builds memory plans of .fuse sources for the memory planner's tests.
import { Compiler, entrySizes } from '../../src/driver/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { Program } from '../../src/ir/types.js';
import { planMemory, type MemoryPlan } from '../../src/memory/index.js';
import type { Plan, Strategy } from '../../src/plan/types.js';

export interface Planned {
  readonly program: Program;
  readonly plan: Plan;
  readonly memory: MemoryPlan;
}

export const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });
export const i32v = (value?: number): InputSignature => ({ kind: 'scalar', elem: 'i32', value });

/** Lowers `source` for `signature`, plans it with `strategy` and plans its memory with the signature's sizes. */
export async function planned(
  source: string,
  signature: Readonly<Record<string, InputSignature>>,
  strategy: Strategy = 'greedy-down',
  sized = true,
  timeLimitSeconds?: number,
): Promise<Planned> {
  const c = new Compiler(source);
  const program = c.lower(signature);
  const plan = await c.plan(signature, { strategy, timeLimitSeconds });
  return { program, plan, memory: planMemory(program, plan, sized ? entrySizes(signature) : {}) };
}
