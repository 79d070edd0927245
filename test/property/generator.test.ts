// The random program generator (test/util/) is itself under test here: every program it makes
// passes the IR verifier, has exactly the requested number of graph nodes, runs in the reference
// interpreter without any error, and produces results of the shapes the generator tracked and
// no NaN; over many cases it covers every combinator, element type, rank and construct.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/ir/types.js';
import { verifyProgram } from '../../src/ir/verify.js';
import { interpret } from '../../src/interp/index.js';
import { printProgram } from '../../src/ir/printer.js';
import { SourceFile } from '../../src/diagnostics/index.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import {
  type GeneratedCase, arbitraryCase, arbitraryCaseDrawByDraw, components, countNodes, generateCase, generatorSizes, printFuse,
  randomProgram, seededRng,
} from '../util/index.js';

function hasNaN(results: ReturnType<typeof interpret>): boolean {
  return results.some((r) => components(r).some((v) => (v.kind === 'array' ? Array.from(v.data).some(Number.isNaN) : Number.isNaN(v.value))));
}

/** Runs a case through the checks every generated program must pass. */
function checkCase(c: GeneratedCase): void {
  const context = (): string => `${c.description}\n${printProgram(c.program)}`;
  try {
    verifyProgram(c.program, 'generator');
    const results = interpret(c.program, c.inputs, { maxWhileIterations: 10 });
    expect(results.length).toBe(c.program.results.length);
    results.forEach((r, k) => {
      const comps = components(r);
      const iface = c.program.results[k]!;
      expect(comps.map((v) => v.elem)).toEqual(iface.components.map((v) => v.elem));
      expect(comps.map((v) => (v.kind === 'array' ? v.shape : []))).toEqual(c.resultShapes[k]);
    });
    expect(hasNaN(results)).toBe(false);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- generated case ---\n${context()}`);
  }
}

describe('random program generator', () => {
  it('makes exactly the requested number of graph nodes', () => {
    for (const n of [1, 2, 3, 5, 7, 12, 25, 50]) {
      for (let seed = 0; seed < 20; seed++) {
        const c = randomProgram(seed, { combinators: n });
        expect(countNodes(c.program.body), c.description).toBe(n);
      }
    }
  });

  it('is deterministic per seed', () => {
    const a = randomProgram(42, generatorSizes.medium);
    const b = randomProgram(42, generatorSizes.medium);
    expect(JSON.stringify(a.program)).toBe(JSON.stringify(b.program));
    expect(a.inputs).toEqual(b.inputs);
    expect(JSON.stringify(randomProgram(43, generatorSizes.medium).program)).not.toBe(JSON.stringify(a.program));
  });

  it('small programs run in the interpreter without error', () => {
    fc.assert(fc.property(arbitraryCase(generatorSizes.small), (c) => checkCase(c)), { numRuns: 1500 });
  });

  it('medium programs run in the interpreter without error', () => {
    fc.assert(fc.property(arbitraryCase(generatorSizes.medium), (c) => checkCase(c)), { numRuns: 500 });
  });

  it('draw-by-draw cases (every decision shrinks) are just as valid', () => {
    fc.assert(fc.property(arbitraryCaseDrawByDraw(generatorSizes.small), (c) => checkCase(c)), { numRuns: 150, endOnFailure: true });
  });

  it('shrinks a failing property to a small program quickly', () => {
    const details = fc.check(
      fc.property(arbitraryCase(generatorSizes.medium), (c) => !JSON.stringify(c.program).includes('"scatter"')),
      { numRuns: 300, seed: 1 },
    );
    expect(details.failed).toBe(true);
    expect(countNodes(details.counterexample![0].program.body)).toBeLessThanOrEqual(10);
    expect(fc.stringify(details.counterexample![0])).toContain('scatter(');
  });

  it('large programs (25 … 400 nodes) are well formed and run', () => {
    for (const n of [25, 50, 100, 200, 400]) {
      for (let seed = 0; seed < 3; seed++) checkCase(randomProgram(seed, generatorSizes.large(n)));
    }
  });

  it('honours extents and maxElements (benchmark-sized arrays)', () => {
    const options = { combinators: 30, extents: { min: 16, max: 64 }, maxElements: 4096 };
    for (let seed = 0; seed < 10; seed++) {
      const c = randomProgram(seed, options);
      checkCase(c);
      const inputShapes = c.inputs.flatMap(components).flatMap((v) => (v.kind === 'array' ? [v.shape] : []));
      for (const shape of [...inputShapes, ...c.resultShapes.flat()]) {
        expect(shape.reduce((n, d) => n * d, 1), c.description).toBeLessThanOrEqual(4096);
      }
      for (const shape of inputShapes) for (const d of shape) expect(d).toBeGreaterThanOrEqual(16);
    }
  });

  it('honours maxRank, elemTypes and controlFlow', () => {
    const ranks = new Set<number>();
    const kinds = new Set<string>();
    for (let seed = 0; seed < 100; seed++) {
      const c = randomProgram(seed, { combinators: { min: 5, max: 20 }, maxRank: 1, elemTypes: ['f32', 'bool'], controlFlow: false });
      for (const p of c.program.params) for (const v of p.components) expect(['f32', 'bool']).toContain(v.elem);
      const note = (b: Block): void => {
        for (const s of b.stmts) {
          kinds.add(s.kind);
          if (s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while') for (const o of s.outs) ranks.add(o.rank);
        }
      };
      note(c.program.body);
    }
    expect(Math.max(...ranks)).toBe(1);
    expect(kinds.has('if') || kinds.has('while')).toBe(false);
  });

  it('covers every combinator, element type, rank and construct', () => {
    const seen = new Set<string>();
    const note = (b: Block): void => {
      for (const s of b.stmts) {
        seen.add(s.kind);
        if (s.kind === 'if') [s.then, s.else].forEach(note);
        if (s.kind === 'while') [s.cond, s.body].forEach(note);
        if (s.kind === 'scalar') continue;
        for (const o of s.outs as readonly { elem: string; rank?: number }[]) seen.add(`${o.elem}[rank ${o.rank ?? 'scalar'}]`);
        if (s.outs.length > 1) seen.add(`tuple ${s.kind}`);
        if (s.kind === 'scanl' || s.kind === 'scanr') seen.add(`${s.kind} ${s.init === null ? 'inclusive' : 'exclusive'}`);
        if (s.kind === 'scatter') seen.add(`scatter ${JSON.stringify(s.op.results[0]).includes('"op":"+"') ? '+' : 'other'}`);
        if (JSON.stringify(s).includes('"kind":"index"')) seen.add('indexing');
        if (s.kind !== 'if' && s.kind !== 'while' && JSON.stringify(s).includes('"kind":"dim"')) seen.add('dim');
      }
    };
    for (let seed = 0; seed < 300; seed++) note(randomProgram(seed, generatorSizes.medium).program.body);
    const expected = [
      'generate', 'map', 'gather', 'scatter', 'fold', 'scanl', 'scanr', 'force', 'if', 'while', 'scalar',
      'scanl inclusive', 'scanl exclusive', 'scanr inclusive', 'scanr exclusive', 'scatter +', 'scatter other',
      'tuple map', 'tuple generate', 'tuple fold', 'tuple gather', 'indexing', 'dim',
      ...['f64', 'f32', 'i32', 'u32', 'bool'].flatMap((t) => [0, 1, 2, 3].map((r) => `${t}[rank ${r}]`)),
    ];
    expect(expected.filter((e) => !seen.has(e))).toEqual([]);
  });

  it('with dropScatters, makes dropping scatters whose indices do leave the destination, and they run', () => {
    let dropping = 0;
    let outside = 0;
    for (let seed = 0; seed < 200; seed++) {
      const c = randomProgram(seed, { ...generatorSizes.medium, dropScatters: true });
      checkCase(c);
      const json = JSON.stringify(c.program);
      if (!json.includes('"drop":true')) continue;
      dropping++;
      // The same program with plain scatters faults where an update left its destination.
      const plain = JSON.parse(json.replaceAll(',"drop":true', '')) as typeof c.program;
      try {
        interpret(plain, c.inputs, { maxWhileIterations: 10 });
      } catch {
        outside++;
      }
      // Printed .fuse keeps the flag (scatterDrop): lowered again, it computes the same results.
      const text = printFuse(c.program);
      expect(text).toContain('scatterDrop(');
      const file = new SourceFile('generated.fuse', text);
      const lowered = lowerModule(parseModule(file), file, { verifyEachPass: true });
      expect(interpret(lowered, c.inputs, { file }), `${c.description}\n${text}`).toEqual(interpret(c.program, c.inputs));
    }
    expect(dropping).toBeGreaterThan(20);
    expect(outside).toBeGreaterThan(10);
    // Off by default: every seed's program stays what it was.
    expect(JSON.stringify(randomProgram(3, generatorSizes.medium).program)).not.toContain('"drop"');
  });

  it('prints programs as .fuse text that parses, lowers and computes the same results', () => {
    for (const [options, count] of [[generatorSizes.small, 200], [generatorSizes.medium, 80]] as const) {
      for (let seed = 0; seed < count; seed++) {
        const c = randomProgram(seed, options);
        const text = printFuse(c.program);
        const file = new SourceFile('generated.fuse', text);
        const lowered = lowerModule(parseModule(file), file, { verifyEachPass: true });
        expect(interpret(lowered, c.inputs, { file }), `${c.description}\n${text}`).toEqual(interpret(c.program, c.inputs));
      }
    }
  });

  it('draws only from its Rng: the same draws give the same program', () => {
    const a = generateCase(seededRng(5), generatorSizes.small);
    const b = generateCase(seededRng(5), generatorSizes.small);
    expect(printProgram(a.program)).toBe(printProgram(b.program));
  });
});
