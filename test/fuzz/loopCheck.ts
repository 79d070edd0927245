// The differential check of one loop-shape program (loopGen.ts): the reference interpreter is
// the oracle, and the fused code of the ILP plan must give the same results, bit for bit, on
// every back-end configuration it is run under (test/runtime/backends.ts: js, multicore@2,
// multicore@3 with the fork threshold at 0, so the rows of a stencil are split between
// threads). Floats are compared element by element with Object.is: −0 is not 0, and NaN equals
// NaN whatever its payload (the only bits JavaScript does not let code choose).
//
// The program is checked lowered without inputs (every extent and scalar a run-time value, one
// plan and one executable for all input sets) under the ILP's plan and greedy top-down's, and
// lowered for the first input set's signature (static extents, as `arrayfuse run` does) under
// the ILP's; every pooled buffer is poisoned, so an element no loop writes shows. The first
// configuration also runs the counters variant of the code (loads and stores counted). Fused code is run directly, with no
// hand-over to the interpreter: a run the interpreter fails must fail with the same diagnostic
// (code, message, location), and a run it completes must complete. The generator makes only
// programs whose every computed element is demanded, so a fault the interpreter ignores would be
// one the fused code invented.

import { UserError } from '../../src/diagnostics/index.js';
import { Compiler, entrySizes, signatureOf } from '../../src/driver/index.js';
import { interpret } from '../../src/interp/index.js';
import type { Program } from '../../src/ir/types.js';
import { componentsOf, type InterfaceValue, type RuntimeValue } from '../../src/ir/values.js';
import { planMemory } from '../../src/memory/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import type { CompileOptions, RunOptions } from '../../src/runtime/index.js';
import { runOn, type BackendConfig } from '../runtime/backends.js';
import type { LoopCase } from './loopGen.js';

/** What a run gave: values, a user-facing diagnostic, or anything else (a compiler bug). */
export type LoopOutcome =
  | { readonly k: 'values'; readonly values: readonly InterfaceValue[] }
  | { readonly k: 'user'; readonly text: string }
  | { readonly k: 'internal'; readonly text: string };

export interface LoopFinding {
  /** `interpreter`, `plan`, or the configuration and lowering of the run that disagreed. */
  readonly where: string;
  readonly detail: string;
}

/** A diagnostic as the user sees it: every code, message and location. */
export function outcomeOf(err: unknown): LoopOutcome {
  if (err instanceof UserError) {
    return { k: 'user', text: err.diagnostics.map((d) => `${d.code} ${d.message}${d.span === undefined ? '' : ` @${d.span.start}-${d.span.end}`}`).join(' | ') };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { k: 'internal', text: `${e.name}: ${e.message}\n${e.stack ?? ''}` };
}

function sameNumber(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}

/** Why two runtime values differ (the first element that does), or null when they are equal. */
function valueDifference(x: RuntimeValue, y: RuntimeValue): string | null {
  if (x.kind !== y.kind || x.elem !== y.elem) return `${x.kind} ${x.elem} against ${y.kind} ${y.elem}`;
  if (x.kind === 'scalar' && y.kind === 'scalar') return sameNumber(x.value, y.value) ? null : `${x.value} against ${y.value}`;
  if (x.kind !== 'array' || y.kind !== 'array') return 'kinds';
  if (x.shape.join() !== y.shape.join()) return `shape [${x.shape.join(', ')}] against [${y.shape.join(', ')}]`;
  for (let k = 0; k < x.data.length; k++) {
    if (!sameNumber(x.data[k]!, y.data[k]!)) return `element ${k}: ${Object.is(x.data[k], -0) ? '-0' : x.data[k]} against ${Object.is(y.data[k], -0) ? '-0' : y.data[k]}`;
  }
  return null;
}

/** Why two outcomes differ, or null when they are the same (values bit for bit, or the same diagnostic). */
export function outcomeDifference(actual: LoopOutcome, expected: LoopOutcome): string | null {
  if (actual.k !== expected.k) return `${show(actual)}\n  expected ${show(expected)}`;
  if (actual.k !== 'values' || expected.k !== 'values') {
    return (actual as { text: string }).text === (expected as { text: string }).text ? null : `${show(actual)}\n  expected ${show(expected)}`;
  }
  if (actual.values.length !== expected.values.length) return `${actual.values.length} results against ${expected.values.length}`;
  for (let r = 0; r < actual.values.length; r++) {
    const xs = componentsOf(actual.values[r]!);
    const ys = componentsOf(expected.values[r]!);
    if (xs.length !== ys.length) return `result ${r}: ${xs.length} components against ${ys.length}`;
    for (let c = 0; c < xs.length; c++) {
      const why = valueDifference(xs[c]!, ys[c]!);
      if (why !== null) return `result ${r}: ${why}`;
    }
  }
  return null;
}

export function show(o: LoopOutcome): string {
  if (o.k !== 'values') return `${o.k}: ${o.text.split('\n')[0]}`;
  return o.values
    .map((v) => componentsOf(v).map((x) => (x.kind === 'scalar' ? String(x.value) : `${x.elem}[${x.shape.join(',')}] ${Array.from(x.data).slice(0, 12).join(', ')}${x.data.length > 12 ? ', …' : ''}`)).join(' & '))
    .join('; ');
}

function showInputs(inputs: Readonly<Record<string, InterfaceValue>>): string {
  return Object.entries(inputs)
    .map(([name, v]) => {
      const x = v as RuntimeValue;
      return x.kind === 'scalar' ? `${name}=${x.value}` : `${name}=${x.elem}[${x.shape.join(',')}] ${JSON.stringify(Array.from(x.data, (d) => (Object.is(d, -0) ? '-0' : Number.isFinite(d) ? d : String(d))))}`;
    })
    .join(' ');
}

/** The reference interpreter's outcome on `ordered` inputs. */
function interpreted(program: Program, ordered: readonly InterfaceValue[], compiler: Compiler): LoopOutcome {
  try {
    return { k: 'values', values: interpret(program, ordered, { file: compiler.file }) };
  } catch (err) {
    return outcomeOf(err);
  }
}

async function fused(config: BackendConfig, program: Program, plan: Plan, ordered: readonly InterfaceValue[], options: CompileOptions & RunOptions): Promise<LoopOutcome> {
  try {
    return { k: 'values', values: (await runOn(config, program, plan, ordered, options)).results };
  } catch (err) {
    return outcomeOf(err);
  }
}

export interface LoopCheckOptions {
  readonly solver: SolverLoader;
  readonly configs: readonly BackendConfig[];
  /** Also lower for the first input set's signature (static extents); default true. */
  readonly specialised?: boolean;
  /** Lower without inputs (run-time extents) and run every set; default true. */
  readonly runtimeExtents?: boolean;
  /** Extra compile options for every fused run (`poisonBuffers` is on unless this turns it off). */
  readonly compile?: CompileOptions;
  /**
   * The plans run with run-time extents: default the ILP's and greedy top-down's (a different
   * fusion of the same gathers); static extents run the ILP plan alone.
   */
  readonly strategies?: readonly Strategy[];
}

/** Every disagreement between the interpreter and the fused runs of `c`; none when all agree. */
export async function checkLoopCase(c: LoopCase, options: LoopCheckOptions): Promise<LoopFinding[]> {
  const findings: LoopFinding[] = [];
  const header = (): string => `${c.family}\n${c.source}`;
  let compiler: Compiler;
  try {
    compiler = new Compiler(c.source, { solver: options.solver, fileName: 'loop.fuse' });
  } catch (err) {
    return [{ where: 'parse', detail: `${header()}\n${show(outcomeOf(err))}` }];
  }
  const lowerings: { readonly name: string; readonly sets: readonly number[]; readonly signature: boolean; readonly strategy: Strategy }[] = [];
  for (const strategy of options.runtimeExtents === false ? [] : (options.strategies ?? ['ilp', 'greedy-down'])) {
    lowerings.push({ name: `run-time extents, ${strategy}`, sets: c.inputs.map((_, k) => k), signature: false, strategy });
  }
  if (options.specialised !== false && c.inputs.length > 0) lowerings.push({ name: 'static extents, ilp', sets: [0], signature: true, strategy: 'ilp' });
  for (const lowering of lowerings) {
    const signature = lowering.signature ? signatureOf(compiler.entry, c.inputs[0]!, compiler.file) : undefined;
    let program: Program;
    let plan: Plan;
    try {
      program = compiler.lower(signature);
      plan = await compiler.plan(signature, { strategy: lowering.strategy, timeLimitSeconds: 5 });
    } catch (err) {
      // A program the generator made must lower and plan (a UserError here is the generator's bug, shown all the same).
      findings.push({ where: `plan (${lowering.name})`, detail: `${header()}\n${show(outcomeOf(err))}` });
      continue;
    }
    const compile: CompileOptions = {
      file: compiler.file,
      // Garbage in every pooled buffer: an element a rewritten loop forgets to compute shows.
      poisonBuffers: true,
      ...(signature === undefined ? {} : { memory: planMemory(program, plan, entrySizes(signature)) }),
      ...options.compile,
    };
    for (const set of lowering.sets) {
      const inputs = c.inputs[set]!;
      const ordered = program.params.map((p) => inputs[p.name]!);
      const expected = interpreted(program, ordered, compiler);
      if (expected.k === 'internal') findings.push({ where: `interpreter (${lowering.name})`, detail: `${header()}\ninputs ${showInputs(inputs)}\n${expected.text}` });
      // The counters variant (loads and stores counted, which the passes leave in place) on the first configuration too.
      const runs = [...options.configs.map((config) => ({ config, counters: false })), ...options.configs.slice(0, 1).map((config) => ({ config, counters: true }))];
      for (const { config, counters } of runs) {
        const actual = await fused(config, program, plan, ordered, { ...compile, counters });
        const why = outcomeDifference(actual, expected);
        if (why !== null) {
          findings.push({
            where: `${config.name}${counters ? ' counters' : ''} (${lowering.name})`,
            detail: `${header()}\ninputs ${showInputs(inputs)}\nplan ${JSON.stringify(plan.root)}\n${config.name}: ${why}${actual.k === 'internal' ? `\n${actual.text}` : ''}`,
          });
        }
      }
    }
  }
  await compiler.dispose();
  return findings;
}
