// WebAssembly kernels (src/codegen/wasm, src/runtime/wasm.ts; docs/EXECUTION.md "WebAssembly"):
// the encoder's numbers and modules, the translator's semantics op by op against the JavaScript
// function it replaces on adversarial values (bit for bit, NaN and -0 included), refusals, faults,
// and whole programs with `wasm: 'on'` against `off` and the interpreter.

import { describe, expect, test } from 'vitest';
import { encodeModule, f64c, i32c, Op, s32leb, u32leb, ValType } from '../../src/codegen/wasm/encoder.js';
import { translateKernel, type KernelSource } from '../../src/codegen/wasm/translate.js';
import { add, assign, bin, call, cond, constDecl, exprStmt, id, index, letDecl, mathCall, member, num, un, type JsExpr, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import { autoRule, KernelMemory, type KernelStats, wasmApi, wasmCluster, type ClusterFunction } from '../../src/runtime/wasm.js';
import type { ScalarType } from '../../src/ir/types.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import { Compiler } from '../../src/driver/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { RuntimeValue } from '../../src/ir/values.js';
import type { CompiledProgram } from '../../src/runtime/executor.js';
import { interpret } from '../../src/interp/index.js';
import { expectSameValues } from '../runtime/equal.js';

const api = wasmApi!;

describe('encoder', () => {
  test('LEB128', () => {
    expect(u32leb(0)).toEqual([0]);
    expect(u32leb(127)).toEqual([127]);
    expect(u32leb(128)).toEqual([0x80, 1]);
    expect(u32leb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(u32leb(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(s32leb(0)).toEqual([0]);
    expect(s32leb(-1)).toEqual([0x7f]);
    expect(s32leb(63)).toEqual([63]);
    expect(s32leb(64)).toEqual([0xc0, 0]);
    expect(s32leb(-64)).toEqual([0x40]);
    expect(s32leb(-65)).toEqual([0xbf, 0x7f]);
    expect(s32leb(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(s32leb(-0x80000000)).toEqual([0x80, 0x80, 0x80, 0x80, 0x78]);
    expect(() => u32leb(-1)).toThrow(RangeError);
    expect(() => s32leb(2 ** 31)).toThrow(RangeError);
  });

  test('a module round-trips through WebAssembly.validate and runs', () => {
    for (const c of [0, 1, -1, 63, 64, -65, 2 ** 31 - 1, -(2 ** 31), 123456789]) {
      const bytes = encodeModule({
        types: [{ params: [ValType.i32, ValType.f64], results: [ValType.f64] }],
        memory: { module: 'env', name: 'memory', minPages: 1 },
        functions: [
          {
            type: 0,
            locals: [ValType.i32, ValType.i32, ValType.f64],
            body: [Op.local_get, 0, ...i32c(c), Op.i32_add, Op.f64_convert_i32_s, Op.local_get, 1, Op.f64_add, ...f64c(-0), Op.f64_add],
          },
        ],
        exports: [{ name: 'f', func: 0 }],
      });
      expect(api.validate(bytes)).toBe(true);
      const memory = new KernelMemory(api).memory;
      const f = new api.Instance(new api.Module(bytes), { env: { memory } }).exports.f as (a: number, b: number) => number;
      expect(f(5, 0.5)).toBe(((5 + c) | 0) + 0.5);
    }
  });

  test('a malformed module does not validate', () => {
    const bytes = encodeModule({
      types: [{ params: [], results: [ValType.i32] }],
      memory: null,
      functions: [{ type: 0, locals: [], body: [...f64c(1)] }], // an f64 where an i32 is due
      exports: [],
    });
    expect(api.validate(bytes)).toBe(false);
  });
});

// ---- the translator on small functions -------------------------------------------------------

/** `for (i = 0; i < n; i++) { const x = a[i]; out[i] = f(x, s) }`, as the code generator writes loops. */
function mapKernel(inElem: ScalarType, outElem: ScalarType, f: (x: JsExpr, s: JsExpr) => JsExpr, pre: JsStmt[] = []): KernelSource {
  const body: JsStmt[] = [
    ...pre,
    {
      kind: 'for',
      index: 'i0',
      from: num(0),
      to: id('n1'),
      down: false,
      body: [constDecl('x2', index(id('a3'), id('i0'))), assign(index(id('a4'), id('i0')), f(id('x2'), id('s5')))],
    },
  ];
  return { name: 'c0', params: ['n1', 'a3', 'a4', 's5'], body, arrays: { a3: inElem, a4: outElem }, extents: ['n1'], scalars: { s5: 'f64' } };
}

function jsFunction(src: KernelSource): ClusterFunction {
  const text = printProgramText([{ kind: 'function', name: src.name, params: ['rt', ...src.params], body: src.body }]);
  return new Function('rt', `'use strict';\n${text}return ${src.name};`)() as ClusterFunction;
}

const faultingRt = {
  oob: (): never => {
    throw new Error('oob');
  },
  divzero: (): never => {
    throw new Error('divzero');
  },
};

function make(elem: ScalarType, values: readonly number[]): TypedArray {
  switch (elem) {
    case 'f64':
      return Float64Array.from(values);
    case 'f32':
      return Float32Array.from(values);
    case 'i32':
      return Int32Array.from(values);
    case 'u32':
      return Uint32Array.from(values);
    case 'u8':
    case 'bool':
      return Uint8Array.from(values);
    case 'i8':
      return Int8Array.from(values);
    default:
      return elem satisfies never;
  }
}

/** Runs `src` as JavaScript and as a kernel (`on`) on the same inputs; both outputs and what the kernel did. */
function both(src: KernelSource, input: TypedArray, s: number): { js: TypedArray; wasm: TypedArray; stats: KernelStats; jsError: unknown; wasmError: unknown } {
  const js = jsFunction(src);
  const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
  const wrapped = wasmCluster(src, js, 'on', new KernelMemory(api), stats);
  const outElem = src.arrays.a4!;
  const out1 = make(outElem, new Array(input.length).fill(7));
  const out2 = make(outElem, new Array(input.length).fill(7));
  let jsError: unknown = null;
  let wasmError: unknown = null;
  try {
    js(faultingRt, input.length, input, out1, s);
  } catch (e) {
    jsError = e;
  }
  try {
    wrapped(faultingRt, input.length, input, out2, s);
  } catch (e) {
    wasmError = e;
  }
  return { js: out1, wasm: out2, stats, jsError, wasmError };
}

function expectSameBits(a: TypedArray, b: TypedArray): void {
  expect(Array.from(b).map(String)).toEqual(Array.from(a).map(String));
  a.forEach((x, k) => expect(Object.is(x, b[k]), `element ${k}: ${x} vs ${b[k]}`).toBe(true));
}

const adversarial = [
  NaN, 0, -0, Infinity, -Infinity, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1, -1, 7, -7,
  2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 32 + 5, -(2 ** 32) - 5, 3e9, -3e9,
  2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, -(2 ** 63), 2 ** 64 + 4096, 2 ** 84, 2 ** 84 + 2 ** 33, 1e300, -1e300, 5e-324, -5e-324,
  0.1, 1 / 3, 123456.789,
];
const int32s = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2 ** 31 - 1, -(2 ** 31), 2 ** 30, -(2 ** 30), 65535, -65536, 46341, -46341];

const f64Ops: [string, (x: JsExpr, s: JsExpr) => JsExpr][] = [
  ['x | 0', (x) => bin('|', x, num(0))],
  ['x >>> 0', (x) => bin('>>>', x, num(0))],
  ['x >> 3', (x) => bin('>>', x, num(3))],
  ['x >>> 5', (x) => bin('>>>', x, num(5))],
  ['x & 255', (x) => bin('&', x, num(255))],
  ['x ^ s', (x, s) => bin('^', x, s)],
  ['x << s', (x, s) => bin('<<', x, s)],
  ['x << 31', (x) => bin('<<', x, num(31))],
  ['(x << s) >>> 0', (x, s) => bin('>>>', bin('<<', x, s), num(0))],
  ['x >> s', (x, s) => bin('>>', x, s)],
  ['x >>> s', (x, s) => bin('>>>', x, s)],
  ['~x', (x) => un('~', x)],
  ['~x >>> 0', (x) => bin('>>>', un('~', x), num(0))],
  ['Math.clz32(x)', (x) => mathCall('clz32', [x])],
  ['Math.imul(x, s)', (x, s) => mathCall('imul', [x, s])],
  ['Math.fround(x)', (x) => mathCall('fround', [x])],
  ['Math.floor(x)', (x) => mathCall('floor', [x])],
  ['Math.ceil(x)', (x) => mathCall('ceil', [x])],
  ['Math.trunc(x)', (x) => mathCall('trunc', [x])],
  ['Math.sqrt(x)', (x) => mathCall('sqrt', [x])],
  ['Math.abs(x)', (x) => mathCall('abs', [x])],
  ['Math.min(x, s)', (x, s) => mathCall('min', [x, s])],
  ['Math.max(x, s)', (x, s) => mathCall('max', [x, s])],
  ['Math.min(x, -0, s)', (x, s) => mathCall('min', [x, un('-', num(0)), s])],
  ['x < s ? 1 : 0', (x, s) => cond(bin('<', x, s), num(1), num(0))],
  ['x >= s ? x : s', (x, s) => cond(bin('>=', x, s), x, s)],
  ['x === s ? 1 : 0', (x, s) => cond(bin('===', x, s), num(1), num(0))],
  ['x !== x ? 1 : 0', (x) => cond(bin('!==', x, x), num(1), num(0))],
  ['x ? 1 : 2 (truthiness)', (x) => cond(x, num(1), num(2))],
  ['!x ? 1 : 0', (x) => cond(un('!', x), num(1), num(0))],
  ['-x', (x) => un('-', x)],
  ['x * s + 1', (x, s) => add(bin('*', x, s), num(1))],
  ['x / s', (x, s) => bin('/', x, s)],
  ['(x | 0) + (s | 0) | 0', (x, s) => bin('|', bin('+', bin('|', x, num(0)), bin('|', s, num(0))), num(0))],
  ['(x | 0) * (s | 0)', (x, s) => bin('*', bin('|', x, num(0)), bin('|', s, num(0)))],
  ['x < 0 && s > 0 ? 1 : 0', (x, s) => cond(bin('&&', bin('<', x, num(0)), bin('>', s, num(0))), num(1), num(0))],
  ['x < 0 || s > 0 ? 1 : 0', (x, s) => cond(bin('||', bin('<', x, num(0)), bin('>', s, num(0))), num(1), num(0))],
  ['x < 0 !== s < 0 ? 1 : 0', (x, s) => cond(bin('!==', bin('<', x, num(0)), bin('<', s, num(0))), num(1), num(0))],
];

/** The wraps codegen writes for u8 and i8 (codegen/scalar.ts wrapTo), on widened byte values. */
const byteOps: [string, (x: JsExpr, s: JsExpr) => JsExpr][] = [
  ['x', (x) => x],
  ['x + s & 255', (x, s) => bin('&', add(x, s), num(255))],
  ['x - s << 24 >> 24', (x, s) => bin('>>', bin('<<', bin('-', x, s), num(24)), num(24))],
  ['x * s & 255', (x, s) => bin('&', bin('*', x, s), num(255))],
  ['~x & 255', (x) => bin('&', un('~', x), num(255))],
  ['~x', (x) => un('~', x)],
  ['x >> s', (x, s) => bin('>>', x, s)],
  ['x << s << 24 >> 24', (x, s) => bin('>>', bin('<<', bin('<<', x, s), num(24)), num(24))],
  ['x < s ? x : s', (x, s) => cond(bin('<', x, s), x, s)],
];

describe('translator: u8 and i8 load zero- and sign-extended and store their low 8 bits', () => {
  const bytes = [0, 1, 2, 7, 100, 127, 128, 129, 200, 254, 255];
  const cases = [['u8', 'u8'], ['i8', 'i8'], ['u8', 'i8'], ['i8', 'u8'], ['u8', 'i32'], ['i8', 'f64'], ['f64', 'u8'], ['f64', 'i8']] as const;
  for (const [inElem, outElem] of cases) {
    test.each(byteOps)(`%s from ${inElem} into ${outElem}`, (_, f) => {
      const src = mapKernel(inElem, outElem, f);
      for (const s of [3, 0, 200, -1, 31, 33]) {
        const r = both(src, make(inElem, inElem === 'f64' ? adversarial : bytes), s);
        expect(r.stats.refusal).toBe(null);
        expect(r.stats.wasmCalls).toBe(1);
        expectSameBits(r.js, r.wasm);
      }
    });
  }
});

describe('translator: f64 operations equal JavaScript bit for bit', () => {
  for (const outElem of ['f64', 'f32', 'i32', 'u32', 'bool'] as const) {
    test.each(f64Ops)(`%s into ${outElem}`, (_, f) => {
      const src = mapKernel('f64', outElem, f);
      for (const s of [3, -0, NaN, 2 ** 31, -5.5, 2 ** 53 + 2, 0]) {
        const r = both(src, make('f64', adversarial), s);
        expect(r.stats.refusal).toBe(null);
        expect(r.stats.wasmCalls).toBe(1);
        expectSameBits(r.js, r.wasm);
      }
    });
  }
});

const intOps: [string, (x: JsExpr, s: JsExpr) => JsExpr, boolean][] = [
  // [name, op, whether the kernel takes it (a -0 into f64 is refused)]
  ['x + 1 | 0', (x) => bin('|', add(x, num(1)), num(0)), true],
  ['x - 1 | 0', (x) => bin('|', bin('-', x, num(1)), num(0)), true],
  ['x + x (beyond int32)', (x) => add(x, x), true],
  ['x * x (beyond 2^53)', (x) => bin('*', x, x), true],
  ['Math.imul(x, x)', (x) => mathCall('imul', [x, x]), true],
  ['x >>> 0', (x) => bin('>>>', x, num(0)), true],
  ['(x >>> 0) >= 5 ? 1 : 0', (x) => cond(bin('>=', bin('>>>', x, num(0)), num(5)), num(1), num(0)), true],
  ['x % 3 | 0', (x) => bin('|', bin('%', x, num(3)), num(0)), true],
  ['x % 3 (may be -0)', (x) => bin('%', x, num(3)), false],
  ['Math.min(x, 5)', (x) => mathCall('min', [x, num(5)]), true],
  ['Math.max(x, -5, 1)', (x) => mathCall('max', [x, num(-5), num(1)]), true],
  ['-x', (x) => un('-', x), true],
  ['-(x % 3 | 0) (may be -0)', (x) => un('-', bin('|', bin('%', x, num(3)), num(0))), false],
  ['x & 7', (x) => bin('&', x, num(7)), true],
  ['x >> 1', (x) => bin('>>', x, num(1)), true],
  ['x << 3', (x) => bin('<<', x, num(3)), true],
  ['x << x', (x) => bin('<<', x, x), true],
  ['(x << 1) >>> 0', (x) => bin('>>>', bin('<<', x, num(1)), num(0)), true],
  ['x >> x', (x) => bin('>>', x, x), true],
  ['x >>> x', (x) => bin('>>>', x, x), true],
  ['~x', (x) => un('~', x), true],
  ['Math.clz32(x)', (x) => mathCall('clz32', [x]), true],
  ['Math.clz32(x >>> 0) + 1', (x) => add(mathCall('clz32', [bin('>>>', x, num(0))]), num(1)), true],
  ['~(x & 7) + 1 | 0', (x) => bin('|', add(un('~', bin('&', x, num(7))), num(1)), num(0)), true],
  ['(~x >>> 0) + 1 (beyond int32)', (x) => add(bin('>>>', un('~', x), num(0)), num(1)), true],
  ['x === 0 ? 1 : 0', (x) => cond(bin('===', x, num(0)), num(1), num(0)), true],
];

describe('translator: int32 operations', () => {
  for (const outElem of ['f64', 'i32', 'u32'] as const) {
    test.each(intOps)(`%s into ${outElem}`, (_, f, accepted) => {
      const src = mapKernel('i32', outElem, f);
      const r = both(src, make('i32', int32s), 0);
      expectSameBits(r.js, r.wasm);
      // Into an integer array -0 is 0, so the kernel needs no f64 of it.
      if (accepted || outElem !== 'f64') {
        expect(r.stats.refusal).toBe(null);
        expect(r.stats.wasmCalls).toBe(1);
      } else {
        expect(r.stats.refusal).toMatch(/-0/);
        expect(r.stats.jsCalls).toBe(1);
      }
    });
  }

  test('u32, f32 and bool inputs load as JavaScript reads them', () => {
    for (const [elem, values] of [
      ['u32', [0, 1, 2 ** 31, 2 ** 32 - 1, 12345]],
      ['f32', [0, -0, NaN, Infinity, 0.1, -3.5, 3.4e38, 1e-45]],
      ['bool', [0, 1, 1, 0]],
    ] as const) {
      for (const outElem of ['f64', 'f32', 'i32', 'bool'] as const) {
        const src = mapKernel(elem, outElem, (x, s) => add(bin('*', x, num(3)), s));
        const r = both(src, make(elem, values), 0.5);
        expect(r.stats.refusal).toBe(null);
        expectSameBits(r.js, r.wasm);
      }
    }
  });

  test('x % s by a divisor that may be 0: JavaScript computes the NaN', () => {
    const src = mapKernel('i32', 'f64', (x, s) => bin('|', bin('%', bin('|', x, num(0)), s), num(0)));
    for (const s of [0, 3, -3]) {
      const r = both(src, make('i32', [5, 6, 7, 9]), s);
      expect(r.stats.refusal).toBe(null);
      expectSameBits(r.js, r.wasm);
      expect(r.stats.faults).toBe(s === 0 ? 1 : 0);
    }
  });
});

describe('translator: gathers, faults and refusals', () => {
  /** out[i] = data[idx[i]] with the generator's check: `if (j >>> 0 >= n) rt.oob(...)`. */
  function gatherKernel(): KernelSource {
    const check: JsStmt = {
      kind: 'if',
      test: bin('>=', bin('>>>', id('x2'), num(0)), id('n6')),
      then: [exprStmt(call(member(id('rt'), 'oob'), [num(0), num(0), num(0), num(0), num(0)]))],
      else: [],
    };
    const body: JsStmt[] = [
      {
        kind: 'for',
        index: 'i0',
        from: num(0),
        to: id('n1'),
        down: false,
        body: [constDecl('x2', index(id('a3'), id('i0'))), check, assign(index(id('a4'), id('i0')), index(id('a7'), id('x2')))],
      },
    ];
    return { name: 'c0', params: ['n1', 'a3', 'a4', 'n6', 'a7'], body, arrays: { a3: 'i32', a4: 'f64', a7: 'f64' }, extents: ['n1', 'n6'], scalars: {} };
  }

  function runGather(idx: number[], data: number[]): { js: unknown; wasm: unknown; out1: Float64Array; out2: Float64Array; stats: KernelStats } {
    const src = gatherKernel();
    const js = jsFunction(src);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, js, 'on', new KernelMemory(api), stats);
    const i = Int32Array.from(idx);
    const d = Float64Array.from(data);
    const out1 = new Float64Array(idx.length).fill(-1);
    const out2 = new Float64Array(idx.length).fill(-1);
    const attempt = (f: () => unknown): unknown => {
      try {
        f();
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    };
    const jsErr = attempt(() => js(faultingRt, idx.length, i, out1, data.length, d));
    const wasmErr = attempt(() => wrapped(faultingRt, idx.length, i, out2, data.length, d));
    return { js: jsErr, wasm: wasmErr, out1, out2, stats };
  }

  test('in range: the kernel runs', () => {
    const r = runGather([2, 0, 1, 1], [0.5, -0, NaN]);
    expect(r.stats.wasmCalls).toBe(1);
    expectSameBits(r.out1, r.out2);
  });

  test.each([[[0, 3]], [[-1, 0]], [[1, 2 ** 31 - 1]], [[0, 1, 2, -(2 ** 31)]]])('out of range %j: the same error, and the same partial writes', (idx) => {
    const r = runGather(idx, [1, 2, 3]);
    expect(r.js).toBe('oob');
    expect(r.wasm).toBe('oob');
    expect(r.stats.faults).toBe(1);
    expectSameBits(r.out1, r.out2);
  });

  test('auto: a kernel that gives up in its trials (a fault) is not tried again; every call raises what JavaScript raises', () => {
    const src = gatherKernel();
    const js = jsFunction(src);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, js, 'auto', new KernelMemory(api), stats);
    const n = 8192;
    const good = Int32Array.from({ length: n }, (_, k) => k);
    const bad = Int32Array.from({ length: n }, (_, k) => (k === n - 1 ? n : k));
    const data = Float64Array.from({ length: n }, (_, k) => k / 2);
    // JavaScript's warm-up calls on good indices, then the first kernel call meets a bad one.
    for (let call = 0; call < autoRule.jsWarmUp; call++) wrapped(faultingRt, n, good, new Float64Array(n), n, data);
    for (let call = 0; call < 8; call++) {
      const out = new Float64Array(n);
      expect(() => wrapped(faultingRt, n, bad, out, n, data)).toThrow('oob');
    }
    expect(stats.faults).toBe(1);
    expect(stats.wasmCalls).toBe(0);
    const out = new Float64Array(n);
    wrapped(faultingRt, n, good, out, n, data);
    expect(stats.wasmCalls).toBe(0);
    expect(out[n - 1]).toBe((n - 1) / 2);
  });

  test('sizes 0 and 1', () => {
    expect(runGather([], []).stats.wasmCalls).toBe(1);
    const r = runGather([0], [4]);
    expectSameBits(r.out1, r.out2);
  });

  test.each([
    ['Math.exp', (x: JsExpr) => mathCall('exp', [x]), /Math.exp/],
    ['% on doubles', (x: JsExpr) => bin('%', x, num(3)), /% on doubles/],
    ['a call on rt that is not a fault', (x: JsExpr) => call(member(id('rt'), 'count'), [num(0), x]), /rt.count/],
  ] as const)('refused: %s, and JavaScript runs instead', (_, f, reason) => {
    const src = mapKernel('f64', 'f64', f);
    const src2 = { ...src, body: src.body };
    const js = jsFunction(src2);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src2, js, 'on', new KernelMemory(api), stats);
    const out = new Float64Array(3);
    const rt = { count: (_k: number, v: number): number => v };
    wrapped(rt, 3, Float64Array.from([1, 2, 3]), out, 0);
    expect(stats.refusal).toMatch(reason);
    expect(stats.jsCalls).toBe(1);
    const want = new Float64Array(3);
    js(rt, 3, Float64Array.from([1, 2, 3]), want, 0);
    expectSameBits(want, out);
  });

  test('refused: a name declared again inside its own scope (one local per name), and JavaScript runs instead', () => {
    const src = mapKernel('f64', 'f64', (x) => add(x, num(1)), [constDecl('x2', num(5))]);
    const js = jsFunction(src);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, js, 'on', new KernelMemory(api), stats);
    const out = new Float64Array(3);
    wrapped(null, 3, Float64Array.from([1, 2, 3]), out, 0);
    expect(stats.refusal).toMatch(/x2 declared again/);
    expect([...out]).toEqual([2, 3, 4]);
  });

  /** out[i] = a[i + (g - g)] + …, with `const g = s * 65536` (s a scalar): g reaches an index. */
  function rowBaseKernel(): KernelSource {
    const body: JsStmt[] = [
      constDecl('g9', bin('*', id('s5'), num(65536))),
      {
        kind: 'for',
        index: 'i0',
        from: num(0),
        to: id('n1'),
        down: false,
        body: [constDecl('x2', index(id('a3'), add(id('i0'), bin('-', id('g9'), id('g9'))))), assign(index(id('a4'), id('i0')), add(id('x2'), num(1)))],
      },
    ];
    return { name: 'c0', params: ['n1', 'a3', 'a4', 's5'], body, arrays: { a3: 'f64', a4: 'f64' }, extents: ['n1'], scalars: { s5: 'f64' } };
  }

  test('a const holding an integer-valued double that reaches an index is an i32 where it fits, and bails to JavaScript where it does not', () => {
    const src = rowBaseKernel();
    const js = jsFunction(src);
    const xs = Float64Array.from([1.5, -0, NaN, -7]);
    for (const [s5, kernelRuns] of [[3, true], [-16384, true], [16384, true], [16385, false], [2 ** 20, false], [-(2 ** 31), false]] as const) {
      const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
      const wrapped = wasmCluster(src, js, 'on', new KernelMemory(api), stats);
      const want = new Float64Array(4);
      js(null, 4, xs, want, s5);
      const got = new Float64Array(4);
      wrapped(null, 4, xs, got, s5);
      expectSameBits(want, got);
      expect(stats.refusal).toBeNull();
      expect(stats).toMatchObject(kernelRuns ? { wasmCalls: 1, faults: 0 } : { wasmCalls: 0, faults: 1 });
    }
  });

  test('an integer-valued double that is only data keeps its double: -0 and magnitudes past 2^30, in the kernel', () => {
    // out[i] = i * s: 0 * -3 is -0, 3 * 2^29 is past 2^30.
    const src = mapKernel('f64', 'f64', () => id('g9'), []);
    const body: JsStmt[] = [{ ...(src.body[0] as Extract<JsStmt, { kind: 'for' }>), body: [constDecl('g9', bin('*', id('i0'), id('s5'))), assign(index(id('a4'), id('i0')), id('g9'))] }];
    const dataOnly = { ...src, body };
    const js = jsFunction(dataOnly);
    for (const s5 of [-3, 2 ** 29, -(2 ** 31)]) {
      const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
      const wrapped = wasmCluster(dataOnly, js, 'on', new KernelMemory(api), stats);
      const want = new Float64Array(4);
      js(null, 4, new Float64Array(4), want, s5);
      const got = new Float64Array(4);
      wrapped(null, 4, new Float64Array(4), got, s5);
      expectSameBits(want, got);
      expect(stats).toMatchObject({ wasmCalls: 1, faults: 0, refusal: null });
    }
  });

  test('a local whose later definitions are not integer-valued loses the integral tag (inference does not settle on a stale one)', () => {
    // let y; let x; for (i) { x = i === 0 ? i * 1e9 : y; const c = x; out[i] = c + a[i + (c - c)] * 0; y = a[i]; }
    // The first round sees only the integer-valued product; later rounds must widen x to any double.
    const body: JsStmt[] = [
      letDecl('y', null),
      letDecl('x', null),
      {
        kind: 'for',
        index: 'i0',
        from: num(0),
        to: id('n1'),
        down: false,
        body: [
          assign(id('x'), cond(bin('===', id('i0'), num(0)), bin('*', id('i0'), num(1e9)), id('y'))),
          constDecl('c', id('x')),
          assign(index(id('a4'), id('i0')), id('c')),
          assign(id('y'), index(id('a3'), add(id('i0'), bin('-', id('c'), id('c'))))),
        ],
      },
    ];
    const src: KernelSource = { name: 'c0', params: ['n1', 'a3', 'a4'], body, arrays: { a3: 'f64', a4: 'f64' }, extents: ['n1'], scalars: {} };
    const js = jsFunction(src);
    const a = Float64Array.from([-0, 7, 3, 4]);
    const want = new Float64Array(4);
    js(null, 4, a, want);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const got = new Float64Array(4);
    wasmCluster(src, js, 'on', new KernelMemory(api), stats)(null, 4, a, got);
    expectSameBits(want, got);
  });

  test('an output that overlaps an input in memory runs in JavaScript', () => {
    const src = mapKernel('f64', 'f64', (x) => add(x, num(1)));
    const js = jsFunction(src);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, js, 'on', new KernelMemory(api), stats);
    const buffer = new Float64Array(5).fill(1);
    wrapped(null, 4, buffer.subarray(0, 4), buffer.subarray(1, 5), 0);
    expect(stats.jsCalls).toBe(1);
    expect(Array.from(buffer)).toEqual([1, 2, 3, 4, 5]);
  });

  test('translation is specialised on extents: a new size gets a new kernel, the same size reuses it', () => {
    const src = mapKernel('f64', 'f64', (x) => bin('*', x, num(2)));
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, jsFunction(src), 'on', new KernelMemory(api), stats);
    for (const n of [3, 5, 3, 1000, 0]) {
      const out = new Float64Array(n);
      wrapped(null, n, Float64Array.from({ length: n }, (_, k) => k), out, 0);
      expect(Array.from(out)).toEqual(Array.from({ length: n }, (_, k) => 2 * k));
    }
    expect(stats.wasmCalls).toBe(5);
  });

  test('a loop whose bound the body changes is refused', () => {
    const body: JsStmt[] = [
      letDecl('m9', id('n1')),
      {
        kind: 'for',
        index: 'i0',
        from: num(0),
        to: id('m9'),
        down: false,
        body: [assign(index(id('a4'), id('i0')), index(id('a3'), id('i0'))), assign(id('m9'), bin('-', id('m9'), num(1)))],
      },
    ];
    const src: KernelSource = { name: 'c0', params: ['n1', 'a3', 'a4', 's5'], body, arrays: { a3: 'f64', a4: 'f64' }, extents: ['n1'], scalars: { s5: 'f64' } };
    const t = translateKernel(src, { extents: { n1: 6 }, lengths: { a3: 6, a4: 6 }, intScalars: new Set() });
    expect(t.ok ? 'accepted' : t.reason).toMatch(/bound the body changes/);
  });

  test('auto: small calls run JavaScript; large ones try both, then keep one; results never change', () => {
    const src = mapKernel('f64', 'f64', (x, s) => add(bin('*', x, x), s));
    const js = jsFunction(src);
    const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
    const wrapped = wasmCluster(src, js, 'auto', new KernelMemory(api), stats);
    const small = Float64Array.from({ length: 100 }, (_, k) => k - 50);
    const out = new Float64Array(100);
    wrapped(null, 100, small, out, 0.5);
    expect(stats).toMatchObject({ wasmCalls: 0, jsCalls: 1 });
    const n = 10000;
    const xs = Float64Array.from({ length: n }, (_, k) => (k % 7 === 0 ? -0 : k / 3 - 100));
    const want = new Float64Array(n);
    js(null, n, xs, want, 0.25);
    const sides: string[] = [];
    for (let call = 0; call < 16; call++) {
      const got = new Float64Array(n);
      const kernelCalls = stats.wasmCalls;
      wrapped(null, n, xs, got, 0.25);
      sides.push(stats.wasmCalls > kernelCalls ? 'wasm' : 'js');
      expectSameBits(want, got);
    }
    // JavaScript warms up (autoRule.jsWarmUp calls), then the kernel and JavaScript alternate,
    // for 2 (JavaScript clearly faster) to autoRule.autoTrials kernel calls; then the side
    // chosen runs every time.
    expect(sides.slice(0, autoRule.jsWarmUp + 1)).toEqual([...Array.from({ length: autoRule.jsWarmUp }, () => 'js'), 'wasm']);
    const trialEnd = autoRule.jsWarmUp + 2 * autoRule.autoTrials - 1;
    const chosen = sides.slice(trialEnd);
    expect(new Set(chosen).size).toBe(1);
    if (chosen[0] === 'js') expect(sides.filter((side) => side === 'wasm').length).toBeLessThanOrEqual(autoRule.autoTrials);
  });

  test('the kernel memory is replaced by a fresh one when its last kernel instance is dropped, not before', () => {
    const memory = new KernelMemory(api);
    memory.acquire();
    memory.acquire();
    memory.ensure(1 << 20);
    const grown = memory.memory;
    memory.release();
    expect(memory.memory).toBe(grown);
    memory.release();
    expect(memory.memory).not.toBe(grown);
    expect(memory.memory.buffer.byteLength).toBe(65536);
  });

  test('a module the translator makes validates', () => {
    const t = translateKernel(mapKernel('f64', 'f32', (x, s) => mathCall('min', [x, s])), { extents: { n1: 10 }, lengths: { a3: 10, a4: 10 }, intScalars: new Set() });
    expect(t.ok).toBe(true);
    if (t.ok) expect(api.validate(t.kernel.bytes)).toBe(true);
  });
});

// ---- whole programs ------------------------------------------------------------------------------

async function compiled(source: string, signature: Record<string, InputSignature>, wasm: 'on' | 'off'): Promise<CompiledProgram> {
  return (await new Compiler(source, { backend: 'js', wasm }).executable(signature)) as CompiledProgram;
}

const sig = (values: Record<string, RuntimeValue>): Record<string, InputSignature> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.kind === 'array' ? { kind: 'array', elem: v.elem, shape: v.shape } : { kind: 'scalar', elem: v.elem, value: v.value }]));

describe('programs with wasm on equal wasm off and the interpreter, bit for bit', () => {
  const stencil = `def main(u: f64[n, m]):
  h, w = shape(u)
  return generate((h, w), lam i, j: u[(i + 1) % h, j] + u[(i + h - 1) % h, j] - 2.0 * u[i, (j + 1) % w] + u[i, (j + w - 1) % w] * 0.25)
`;
  const contraction = `def main(a: f64[n, k], b: f64[k, m]):
  rows, inner = shape(a)
  inner2, cols = shape(b)
  as = gather(generate((rows, cols, inner), lam i, j, p: (i, p)), a)
  bs = gather(generate((rows, cols, inner), lam i, j, p: (p, j)), b)
  return fold(+, zipWith(*, as, bs))
`;
  const mixed = `def main(xs: f32[n], is: i32[n], us: u32[n], bs: bool[n]):
  ys = zipWith(lam x, i: f32(i) * x + f32(i // 3) + f32(i % 5), xs, is)
  return zipWith3(lam y, u, b: (y - f32(u)) if b else f32(u // u32(7)) * y, ys, us, bs), zipWith(lam i, u: u32(i) * u + u32(i) // u32(3), is, us), map(lam b: not b, bs)
`;
  const bits = `def main(is: i32[n], us: u32[n]):
  return zipWith(lam i, u: (i << (i & 31) ^ ~i >> 3 | i & 255, u << (u >> 28) ^ ~u >> 3 | u & u32(255), u >> u32(i), popcount(i) + clz(i), popcount(u) + clz(u)), is, us), fold(^, is), fold(|, us)
`;
  const f64Array = (shape: number[], f: (k: number) => number): RuntimeValue => ({
    kind: 'array', elem: 'f64', shape, data: Float64Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, k) => f(k)),
  });
  const cases: [string, string, Record<string, RuntimeValue>][] = [];
  for (const [n, m] of [[1, 1], [2, 3], [3, 2], [5, 7]]) {
    cases.push([`stencil with wraps ${n}x${m}`, stencil, { u: f64Array([n, m], (k) => [NaN, -0, 1.5, Infinity, -2, 1e300][k % 6]!) }]);
  }
  for (const [n, k, m] of [[1, 1, 1], [3, 0, 2], [4, 5, 3]]) {
    cases.push([`contraction ${n}x${k}x${m}`, contraction, { a: f64Array([n, k], (x) => x * 0.5 - 1), b: f64Array([k, m], (x) => 1 / (x + 1)) }]);
  }
  const n = 6;
  cases.push([
    'f32, i32, u32 and bool arrays',
    mixed,
    {
      xs: { kind: 'array', elem: 'f32', shape: [n], data: Float32Array.from([0.1, -0, NaN, 3.5e38, -1, 2]) },
      is: { kind: 'array', elem: 'i32', shape: [n], data: Int32Array.from([1, -(2 ** 31), 2 ** 31 - 1, 0, 7, -7]) },
      us: { kind: 'array', elem: 'u32', shape: [n], data: Uint32Array.from([0, 2 ** 32 - 1, 5, 2 ** 31, 1, 9]) },
      bs: { kind: 'array', elem: 'bool', shape: [n], data: Uint8Array.from([1, 0, 1, 1, 0, 1]) },
    },
  ]);

  cases.push([
    'bit operations on i32 and u32 at their limits',
    bits,
    {
      is: { kind: 'array', elem: 'i32', shape: [8], data: Int32Array.from([0, -1, -(2 ** 31), 2 ** 31 - 1, 31, 32, 33, -33]) },
      us: { kind: 'array', elem: 'u32', shape: [8], data: Uint32Array.from([0, 2 ** 32 - 1, 2 ** 31, 2 ** 31 - 1, 31, 32, 33, 0xdeadbeef]) },
    },
  ]);

  test.each(cases)('%s', async (_, source, values) => {
    const signature = sig(values);
    const on = await compiled(source, signature, 'on');
    const off = await compiled(source, signature, 'off');
    const inputs = Object.values(values);
    const a = on.run(inputs);
    const b = off.run(inputs);
    expectSameValues(a.results, b.results);
    expectSameValues(a.results, interpret(on.program, inputs));
    expect(on.kernelStats.some((s) => s !== undefined && s.wasmCalls > 0), JSON.stringify(on.kernelStats)).toBe(true);
    expect(on.kernelStats.some((s) => s !== undefined && s.wasmCalls > 0)).toBe(true);
    expect(off.kernelStats.length).toBe(0);
  });

  test('a gather out of range raises the interpreter error under wasm on', async () => {
    const source = `def main(is: i32[n], xs: f64[m]):
  return gather(is, map(lam x: x * 2.0, xs))
`;
    const values: Record<string, RuntimeValue> = {
      is: { kind: 'array', elem: 'i32', shape: [3], data: Int32Array.from([0, 5, 1]) },
      xs: f64Array([4], (k) => k),
    };
    const on = await compiled(source, sig(values), 'on');
    const off = await compiled(source, sig(values), 'off');
    const inputs = Object.values(values);
    const err = (f: () => unknown): string => {
      try {
        f();
        return 'no error';
      } catch (e) {
        return (e as Error).message;
      }
    };
    const want = err(() => off.run(inputs));
    expect(want).toMatch(/E402|out of/);
    expect(err(() => on.run(inputs))).toBe(want);
    expect(on.kernelStats.some((s) => s !== undefined && s.faults > 0)).toBe(true);
  });
});
