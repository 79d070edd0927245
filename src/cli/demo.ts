// `arrayfuse demo` (what `npm start` runs): every bundled paper example, run on generated
// inputs with its optimal plan, next to the reference interpreter's answer.
//
// Inputs are made from each parameter's (annotated or inferred) type: arrays of `size`
// elements per dimension, i32 arrays holding valid indices 0..size-1 (so gathers stay in
// range), f64 arrays holding small whole numbers so the printed results are easy to check by
// hand, and scalars set to 3.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { EntryParamType } from '../lower/index.js';
import { elemLeaves } from '../lower/types.js';
import { allocate } from '../ir/scalarOps.js';
import type { ScalarType } from '../ir/types.js';
import { componentsOf, type InterfaceValue, type RuntimeValue } from '../ir/values.js';
import { Compiler } from '../driver/index.js';
import { defaultSolverLoader } from '../plan/ilp/solver.js';
import { renderPlanText } from '../report/render.js';
import type { Terminal } from './main.js';
import { formatValue } from './format.js';

const examplesDir = fileURLToPath(new URL('../../examples/', import.meta.url));

function demoArray(elem: ScalarType, shape: readonly number[], size: number, salt: number): RuntimeValue {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = allocate(elem, n);
  for (let i = 0; i < n; i++) {
    const k = (i * 7 + salt * 3 + 1) % size;
    data[i] = elem === 'bool' ? k % 2 : elem === 'i32' || elem === 'u32' ? k : (i * 3 + salt * 5 + 1) % 10;
  }
  return { kind: 'array', elem, shape, data };
}

function demoInput(type: EntryParamType, size: number, salt: number): InterfaceValue {
  if (type.kind === 'scalar') return { kind: 'scalar', elem: type.elem, value: 3 };
  const shape = Array.from({ length: type.rank }, () => size);
  const parts = elemLeaves(type.elem).map((e, k) => demoArray(e, shape, size, salt + k));
  return parts.length === 1 ? parts[0]! : parts;
}

function sameResults(a: readonly InterfaceValue[], b: readonly InterfaceValue[]): boolean {
  const flat = (vs: readonly InterfaceValue[]): RuntimeValue[] => vs.flatMap((v) => [...componentsOf(v)]);
  const xs = flat(a);
  const ys = flat(b);
  return (
    xs.length === ys.length &&
    xs.every((x, k) => {
      const y = ys[k]!;
      if (x.kind === 'scalar') return y.kind === 'scalar' && Object.is(x.value, y.value);
      return y.kind === 'array' && x.data.length === y.data.length && x.data.every((v, i) => Object.is(v, y.data[i]));
    })
  );
}

/** Runs every example; `threads` as `--threads` gives it (undefined: the default, see Compiler's `threads`). */
export async function runDemo(term: Terminal, size: number, threads?: number): Promise<void> {
  const solver = defaultSolverLoader();
  const files = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).sort();
  for (const name of files) {
    const path = join(examplesDir, name);
    const source = readFileSync(path, 'utf8');
    const compiler = new Compiler(source, { fileName: `examples/${name}`, solver, threads });
    const types = compiler.parameterTypes();
    const inputs = Object.create(null) as Record<string, InterfaceValue>;
    compiler.parameterNames.forEach((p, k) => {
      inputs[p] = demoInput(types[p]!, size, k);
    });
    const header = source.split('\n').filter((l) => l.startsWith('#')).map((l) => l.slice(1).trim()).join(' ');
    term.out(`━━ ${name} ━━`);
    term.out(header);
    for (const [p, v] of Object.entries(inputs)) {
      term.out(`  input  ${p} = ${componentsOf(v).map((c) => formatValue(c)).join(', ')}`);
    }
    const fused = await compiler.execute(inputs);
    const reference = await compiler.execute(inputs, { interpret: true });
    fused.program.results.forEach((r, k) => {
      const v = fused.results[k]!;
      term.out(`  result ${r.name} = ${componentsOf(v).map((c) => formatValue(c)).join(', ')}`);
    });
    term.out(`  fused code agrees with the reference interpreter: ${sameResults(fused.results, reference.results) ? 'yes' : 'NO'}`);
    if (fused.plan !== undefined && fused.graphs !== undefined) {
      term.out(
        renderPlanText(fused.graphs, fused.plan)
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      );
    }
    term.out('');
  }
}
