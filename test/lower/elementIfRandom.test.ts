// Random element functions with if/elif/else, returns and array reads that may be out of range,
// run in every mode against a plain JavaScript interpreter of the same statements with the
// language's fault semantics (a fault counts where the result depends on it): the values where
// no element's result is poisoned, E402 where one is, and no hand-over to the interpreter in
// fused code where nothing faults (src/lower/elementIf.ts).

import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import { plain, runAllModes } from './modes.js';
import { seededRng, type Rng } from '../util/rng.js';

type E =
  | { k: 'var'; name: 'a' | 'b' }
  | { k: 'i' }
  | { k: 'num'; v: number }
  | { k: 'read'; off: number }
  | { k: 'bin'; op: '+' | '-' | '*'; l: E; r: E };
type C = { k: 'lt' | 'gt' | 'eq'; l: E; r: E };
type S =
  | { k: 'set'; name: 'a' | 'b'; e: E }
  | { k: 'ret'; e: E }
  | { k: 'if'; clauses: { c: C; body: S[] }[]; orelse: S[] | null };

const pick = <T,>(rng: Rng, xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;

function genE(rng: Rng, depth: number): E {
  const r = rng.int(0, depth > 1 ? 4 : 9);
  if (r === 0) return { k: 'num', v: pick(rng, [0.5, 1, 2, -1.5]) };
  if (r === 1) return { k: 'i' };
  if (r === 2) return { k: 'read', off: rng.int(-2, 2) };
  if (r <= 4) return { k: 'var', name: pick(rng, ['a', 'b'] as const) };
  return { k: 'bin', op: pick(rng, ['+', '-', '*'] as const), l: genE(rng, depth + 1), r: genE(rng, depth + 1) };
}

function genC(rng: Rng): C {
  const i = rng.int(0, 2);
  if (i === 0) return { k: pick(rng, ['lt', 'gt', 'eq'] as const), l: { k: 'i' }, r: { k: 'num', v: rng.int(0, 5) } };
  return { k: pick(rng, ['lt', 'gt'] as const), l: genE(rng, 1), r: genE(rng, 1) };
}

function genBody(rng: Rng, depth: number, len: number): S[] {
  const out: S[] = [];
  for (let n = 0; n < len; n++) {
    const r = rng.int(0, 9);
    if (r < 5 || depth >= 3) out.push({ k: 'set', name: pick(rng, ['a', 'b'] as const), e: genE(rng, 0) });
    else if (r < 7) {
      out.push({ k: 'ret', e: genE(rng, 0) });
      break;
    } else {
      const clauses = Array.from({ length: rng.int(1, 3) }, () => ({ c: genC(rng), body: genBody(rng, depth + 1, rng.int(1, 3)) }));
      out.push({ k: 'if', clauses, orelse: rng.int(0, 1) === 0 ? null : genBody(rng, depth + 1, rng.int(1, 2)) });
    }
  }
  return out;
}

const showE = (e: E): string => {
  switch (e.k) {
    case 'var':
      return e.name;
    case 'i':
      return 'f64(i)';
    case 'num':
      return e.v < 0 ? `(${e.v.toFixed(1)})` : e.v.toFixed(1);
    case 'read':
      return e.off === 0 ? 'xs[i]' : `xs[i ${e.off < 0 ? '-' : '+'} ${Math.abs(e.off)}]`;
    case 'bin':
      return `(${showE(e.l)} ${e.op} ${showE(e.r)})`;
  }
};
const showC = (c: C): string => `${c.l.k === 'i' && c.r.k === 'num' ? 'i' : showE(c.l)} ${{ lt: '<', gt: '>', eq: '==' }[c.k]} ${c.l.k === 'i' && c.r.k === 'num' ? String(c.r.v) : showE(c.r)}`;

function showBody(body: readonly S[], indent: string): string[] {
  return body.flatMap((s): string[] => {
    switch (s.k) {
      case 'set':
        return [`${indent}${s.name} = ${showE(s.e)}`];
      case 'ret':
        return [`${indent}return ${showE(s.e)}`];
      case 'if':
        return [
          ...s.clauses.flatMap((c, k) => [`${indent}${k === 0 ? 'if' : 'elif'} ${showC(c.c)}:`, ...showBody(c.body, `${indent}  `)]),
          ...(s.orelse === null ? [] : [`${indent}else:`, ...showBody(s.orelse, `${indent}  `)]),
        ];
    }
  });
}

/** A value and whether a fault it depends on poisons it (docs/LANGUAGE.md §5, "Run-time faults"). */
interface V {
  readonly v: number;
  readonly t: boolean;
}

/** Whether a run read out of range at all, used or not (fused code may stop there, then hand the run to the interpreter). */
interface Ran {
  readOutOfRange: boolean;
}

function assignsIn(stmts: readonly S[], name: 'a' | 'b'): boolean {
  return stmts.some((s) => (s.k === 'set' ? s.name === name : s.k === 'if' && [...s.clauses.map((c) => c.body), s.orelse ?? []].some((b) => assignsIn(b, name))));
}

function returnsIn(stmts: readonly S[]): boolean {
  return stmts.some((s) => s.k === 'ret' || (s.k === 'if' && [...s.clauses.map((c) => c.body), s.orelse ?? []].some(returnsIn)));
}

/**
 * The statements run as the language defines them: one branch runs; a read out of range
 * poisons its value (0, as the interpreter computes it) instead of stopping; a branch's
 * condition poisons, as `a if c else b` does, each name some branch from it on binds and, where a
 * branch from it on returns, the value returned. The element faults if its value is poisoned.
 */
function runJs(body: readonly S[], xs: readonly number[], i: number, ran: Ran): V {
  const env: Record<'a' | 'b', V> = { a: { v: xs.length * 0.25, t: false }, b: { v: 1 - i, t: false } };
  let returnTaint = false;
  const ev = (e: E): V => {
    switch (e.k) {
      case 'var':
        return env[e.name];
      case 'i':
        return { v: i, t: false };
      case 'num':
        return { v: e.v, t: false };
      case 'read': {
        const j = i + e.off;
        if (j >= 0 && j < xs.length) return { v: xs[j]!, t: false };
        ran.readOutOfRange = true;
        return { v: 0, t: true };
      }
      case 'bin': {
        const l = ev(e.l);
        const r = ev(e.r);
        if (l.t || r.t) return { v: 0, t: true };
        return { v: e.op === '+' ? l.v + r.v : e.op === '-' ? l.v - r.v : l.v * r.v, t: false };
      }
    }
  };
  const cond = (c: C): V => {
    const l = c.l.k === 'i' && c.r.k === 'num' ? { v: i, t: false } : ev(c.l);
    const r = c.l.k === 'i' && c.r.k === 'num' ? { v: c.r.v, t: false } : ev(c.r);
    if (l.t || r.t) return { v: 0, t: true };
    return { v: (c.k === 'lt' ? l.v < r.v : c.k === 'gt' ? l.v > r.v : l.v === r.v) ? 1 : 0, t: false };
  };
  const exec = (stmts: readonly S[]): V | null => {
    for (const s of stmts) {
      if (s.k === 'set') env[s.name] = ev(s.e);
      else if (s.k === 'ret') return ev(s.e);
      else {
        const arms = [...s.clauses.map((c) => c.body), s.orelse ?? []];
        const taint = { a: false, b: false, ret: false };
        let chosen = arms.length - 1;
        for (let k = 0; k < s.clauses.length; k++) {
          const c = cond(s.clauses[k]!.c);
          const rest = arms.slice(k);
          if (c.t) {
            taint.a ||= rest.some((b) => assignsIn(b, 'a'));
            taint.b ||= rest.some((b) => assignsIn(b, 'b'));
            taint.ret ||= rest.some(returnsIn);
          }
          if (c.v !== 0) {
            chosen = k;
            break;
          }
        }
        const r = exec(arms[chosen]!);
        returnTaint ||= taint.ret;
        if (r !== null) return { v: r.v, t: r.t || returnTaint };
        for (const n of ['a', 'b'] as const) if (taint[n]) env[n] = { v: env[n].v, t: true };
      }
    }
    return null;
  };
  const r = exec(body) ?? { v: env.a.v + env.b.v * i, t: env.a.t || env.b.t };
  return { v: r.v, t: r.t || returnTaint };
}

function program(body: readonly S[]): string {
  return [
    'def f(xs, i):',
    '  a = f64(size(xs)) * 0.25',
    '  b = 1.0 - f64(i)',
    ...showBody(body, '  '),
    '  return a + b * f64(i)',
    'def main(xs: f64[n]):',
    '  return generate(size(xs), lam i: f(xs, i))',
    '',
  ].join('\n');
}

describe('random element functions with ifs', () => {
  const xs = [0.5, -1, 2.25, 4, -3, 1.5, 0];
  // 30 programs by default; ELEMIF_SEEDS=300 for a longer search (300 pass).
  const seeds = Array.from({ length: Number(process.env.ELEMIF_SEEDS ?? 30) }, (_, k) => k + 1);
  test.each(seeds)('seed %d', async (seed) => {
    const rng = seededRng(seed * 7919);
    const body = genBody(rng, 0, rng.int(2, 5));
    const src = program(body);
    const ran: Ran = { readOutOfRange: false };
    const values = xs.map((_, i) => runJs(body, xs, i, ran));
    const expected = values.some((v) => v.t) ? 'E402' : values.map((v) => v.v);
    const inputs = { xs: Float64Array.from(xs) };
    if (expected === 'E402') {
      const p = compile(src);
      for (const mode of [{ interpret: true }, { strategy: 'ilp' as const }, { strategy: 'none' as const }]) {
        const outcome = await p.run(inputs, mode).then(() => 'ok', (e: { diagnostics?: { code: string }[] }) => e.diagnostics?.[0]?.code);
        expect({ src, mode, outcome }).toEqual({ src, mode, outcome: 'E402' });
      }
      return;
    }
    const all = await runAllModes(src, inputs);
    for (const [mode, r] of Object.entries(all)) expect({ src, mode, result: plain(r['result']!) }).toEqual({ src, mode, result: expected });
    // Where the source reads nothing out of range, not even a value it never uses, neither
    // does fused code: the reads of branches not taken are guarded.
    if (ran.readOutOfRange) return;
    for (const options of [{ threads: 1, wasm: 'off' as const }, { threads: 1, wasm: 'on' as const }]) {
      const p = compile(src, options);
      const run = await p.execute(inputs);
      await p.dispose();
      expect({ src, options, fallback: run.fallback?.message, result: plain(run.results['result']!) }).toEqual({ src, options, fallback: undefined, result: expected });
    }
  });
});
