// Lowering's finishing steps are named passes in one pipeline (src/lower/finish.ts), and with
// `verifyEachPass` the IR verifier runs after each: a pass that breaks the IR is named in the
// CompilerBug; every program we ship or benchmark lowers cleanly pass by pass, to the same IR
// as without verification.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompilerBug, SourceFile } from '../../src/diagnostics/index.js';
import { runPasses, type ProgramPass } from '../../src/ir/passes.js';
import type { Program } from '../../src/ir/types.js';
import { finishingPasses } from '../../src/lower/finish.js';
import { lowerModule, type LowerOptions } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { lowerText } from './helpers.js';
import { arr, arrayParam, bin, f64, lam, nodes, opLam, program, v } from '../ir/builders.js';

const root = join(import.meta.dirname, '..', '..');

/** Drops the body's first statement: whatever read its outputs now reads an unbound name. */
const dropFirstBinding: ProgramPass = {
  name: 'drop-first-binding',
  run: (p) => ({ ...p, body: { ...p.body, stmts: p.body.stmts.slice(1) } }),
};

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

const twoMaps = (): Program => lowerText('def main(xs: f64[n]):\n  ys = map(lam x: x + 1.0, xs)\n  return map(lam y: y * 2.0, ys)\n');

describe('the finishing pipeline', () => {
  it('is one list of named passes', () => {
    const names = { fresh: (h: string) => h, nodeId: () => 0 };
    expect(finishingPasses(names, () => []).map((p) => p.name)).toEqual(['dead-code', 'sink-conversions', 'copy-scatter-destinations', 'ssa-names']);
  });

  it('names the pass that broke the IR', () => {
    const e = caught(() => runPasses(twoMaps(), [dropFirstBinding], { verifyEachPass: true }));
    expect(e).toBeInstanceOf(CompilerBug);
    expect((e as CompilerBug).pass).toBe('drop-first-binding');
    expect((e as CompilerBug).message).toMatch(/internal compiler error in drop-first-binding: IR verification failed: .* is not in scope/);
  });

  it('names the breaking pass, not the passes before or after it', () => {
    const identity = (name: string): ProgramPass => ({ name, run: (p) => p });
    const e = caught(() => runPasses(twoMaps(), [identity('before'), dropFirstBinding, identity('after')], { verifyEachPass: true }));
    expect((e as CompilerBug).pass).toBe('drop-first-binding');
  });

  it('does not verify unless asked', () => {
    expect(runPasses(twoMaps(), [dropFirstBinding]).body.stmts).toHaveLength(1);
  });

  it('checks in-place updates only for passes that promise them', () => {
    // `d` is read after the scatter updates it in place: IR before copy insertion.
    const n = nodes();
    const double = (out: string, input: string) => n.map([arr(out, 'f64', 1)], [input], lam([[`${out}_x`, 'f64']], bin('*', v(`${out}_x`, 'f64'), f64(2))));
    const params = [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)];
    const hazard = program('p', params, [
      double('d', 'xs'),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['xs']),
      double('after', 'd'),
    ], ['s', 'after']);
    const unchanged = (keeps?: ProgramPass['keeps']): ProgramPass => ({ name: 'unchanged', run: (p) => p, ...(keeps === undefined ? {} : { keeps }) });
    expect(runPasses(hazard, [unchanged({ inPlaceUpdates: false })], { verifyEachPass: true })).toBe(hazard);
    const e = caught(() => runPasses(hazard, [unchanged()], { verifyEachPass: true }));
    expect((e as CompilerBug).message).toMatch(/internal compiler error in unchanged: .*destination d is used after it/);
  });

  it('copies a destination read after its scatter, verified after each pass', () => {
    const source = 'def main(xs: f64[n], is: i32[m], vs: f64[m]):\n  d = map(lam x: x + 1.0, xs)\n  ys = scatter(+, d, zip(is, vs))\n  return zipWith(lam a, b: a + b, d, ys)\n';
    const stmts = lowerText(source).body.stmts;
    const copies = stmts.flatMap((s) => (s.kind === 'map' && s.inputs.join() === 'd' && s.outs[0]!.name.startsWith('copy') ? [s.outs[0]!.name] : []));
    expect(copies).toHaveLength(1);
    expect(stmts.find((s) => s.kind === 'scatter')).toMatchObject({ dest: copies });
  });
});

/** The `.fuse` files of a folder, with the signature each needs to lower (mg's recursion follows a static side). */
function programs(folder: string): { name: string; text: string; options: LowerOptions }[] {
  const sized: Readonly<Record<string, LowerOptions>> = {
    'mg.fuse': { signature: { v: { kind: 'array', elem: 'f64', shape: [32, 32, 32] }, nit: { kind: 'scalar', elem: 'i32' } } },
    'mg-generates.fuse': { signature: { v: { kind: 'array', elem: 'f64', shape: [32, 32, 32] }, nit: { kind: 'scalar', elem: 'i32' } } },
  };
  return readdirSync(join(root, folder))
    .filter((f) => f.endsWith('.fuse'))
    .map((f) => ({ name: `${folder}/${f}`, text: readFileSync(join(root, folder, f), 'utf8'), options: sized[f] ?? {} }));
}

describe('every example and benchmark program, verified after each pass', () => {
  it.each([...programs('examples'), ...programs('bench/programs')])('$name', ({ name, text, options }) => {
    const file = new SourceFile(name, text);
    const module = parseModule(file);
    const verified = lowerModule(module, file, { ...options, verifyEachPass: true });
    expect(verified).toEqual(lowerModule(module, file, options));
  });
});
