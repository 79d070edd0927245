// The device variant's main: the parallel variant's main made asynchronous for a back end whose
// arrays live on a device (the WebGPU one, src/runtime/webgpu).
//
// Cluster work runs on the device: every `if (!rt.par(…)) { …chunks on this thread… }` becomes
// `await rt.dispatch(…)` with par's arguments (the runtime runs the chunks on the device, or on
// this thread itself when it cannot), and every call of a serial cluster function `cN(rt, …args)`
// becomes `await rt.serial(N, cN, [...args])`. (A fold's or scan's partials are combined by work
// functions of their own in this variant: program.ts `glueFunction`.) What main does itself stays
// here, on the host: shapes, sizes (a data-dependent one read from an array), `while` and `if`
// conditions. Where such a statement reads or writes array elements, the
// arrays are brought to the host first (`await rt.host([...])`, a read back only when the
// device holds a newer copy) and those it writes are marked changed on the host after it
// (`rt.hostWrote([...])`), so the device copies are refreshed before a kernel next reads them.
// The helpers that copy whole arrays (`rt.copy`, `rt.emit`, `rt.give`) become their awaited
// device forms (`rt.deviceCopy`, …): the runtime copies on the device or reads back as it needs to.
//
// An array in main is any identifier indexed there (`p12[k]`, `a5[0]`) other than `inputs`,
// the list of input records.

import { CompilerBug } from '../diagnostics/index.js';
import type { TypedArray } from '../ir/scalarOps.js';
import { arr, call, exprStmt, forEachNode, id, mapChildren, member, num, type JsExpr, type JsStmt } from './jsast.js';
import { runtimeParam, type RuntimeHelpers } from './runtimeHelpers.js';

/** What the device variant's main calls on `rt` besides RuntimeHelpers (src/runtime/webgpu implements it). */
export interface DeviceHelpers {
  /** Runs a work function's chunks (par's arguments): on the device, or here when its kernel was refused. */
  dispatch(c: number, fn: number, extent: number, work: number, fixed: boolean, args: readonly (TypedArray | number)[]): Promise<void>;
  /** Runs serial cluster `c` (its function `f`, for when its kernel was refused). */
  serial(c: number, f: (...args: never[]) => unknown, args: readonly (TypedArray | number)[]): Promise<void>;
  /** Brings the host copies of `arrays` up to date. */
  host(arrays: readonly TypedArray[]): Promise<void>;
  /** Main wrote `arrays` on the host. */
  hostWrote(arrays: readonly TypedArray[]): void;
  deviceCopy(site: number, data: TypedArray): Promise<TypedArray>;
  deviceEmit(site: number, k: number, data: TypedArray): Promise<TypedArray>;
  deviceGive(k: number, data: TypedArray): Promise<TypedArray>;
}

/** The helpers main calls that copy whole arrays, and their awaited device forms. */
const deviceForms: ReadonlyMap<string, keyof DeviceHelpers> = new Map<keyof RuntimeHelpers, keyof DeviceHelpers>([
  ['copy', 'deviceCopy'],
  ['emit', 'deviceEmit'],
  ['give', 'deviceGive'],
]);

const awaited = (e: JsExpr): JsExpr => ({ kind: 'unary', op: 'await', arg: e });
const helper = (name: keyof DeviceHelpers, args: readonly JsExpr[]): JsExpr => call(member(id(runtimeParam), name), args);

/** main's function statement, asynchronous, for a module whose serial cluster functions are `serial` (by name → cluster number). */
export function deviceMain(main: JsStmt, serial: ReadonlyMap<string, number>): JsStmt {
  if (main.kind !== 'function') throw new CompilerBug('codegen', 'deviceMain: main is not a function');
  return { ...main, async: true, body: statements(main.body, serial) };
}

function statements(stmts: readonly JsStmt[], serial: ReadonlyMap<string, number>): JsStmt[] {
  return stmts.flatMap((s) => statement(s, serial));
}

function statement(s: JsStmt, serial: ReadonlyMap<string, number>): JsStmt[] {
  const par = parCall(s);
  if (par !== null) return [exprStmt(awaited(helper('dispatch', par.args)))];
  const cluster = serialCall(s, serial);
  if (cluster !== null) return [exprStmt(awaited(helper('serial', [num(cluster.number), id(cluster.name), arr(cluster.args)])))];
  if (!dispatches(s, serial)) return withHostArrays(s);
  // A statement that holds cluster calls: its own tests run here, its bodies are rewritten.
  switch (s.kind) {
    case 'if':
      return [...syncBefore([s.test]), { ...s, then: statements(s.then, serial), else: statements(s.else, serial) }];
    case 'while': {
      // The test reads its arrays again before every iteration.
      const sync = syncBefore([s.test]);
      if (sync.length === 0) return [{ ...s, body: statements(s.body, serial) }];
      const stop: JsStmt = { kind: 'if', test: { kind: 'unary', op: '!', arg: s.test }, then: [{ kind: 'break' }], else: [] };
      return [{ kind: 'while', test: { kind: 'unary', op: '!', arg: num(0) }, body: [...sync, stop, ...statements(s.body, serial)] }];
    }
    case 'for':
      return [...syncBefore([s.from, s.to]), { ...s, body: statements(s.body, serial) }];
    case 'block':
      return [{ ...s, body: statements(s.body, serial) }];
    default:
      throw new CompilerBug('codegen', `deviceMain: a ${s.kind} statement that calls a cluster`);
  }
}

/** `if (!rt.par(…)) { … }`: the rt.par call. */
function parCall(s: JsStmt): Extract<JsExpr, { kind: 'call' }> | null {
  if (s.kind !== 'if' || s.else.length !== 0 || s.test.kind !== 'unary' || s.test.op !== '!') return null;
  const c = s.test.arg;
  return c.kind === 'call' && isHelperCall(c, 'par') ? c : null;
}

/** `cN(rt, …args)` of a serial cluster function. */
function serialCall(s: JsStmt, serial: ReadonlyMap<string, number>): { name: string; number: number; args: readonly JsExpr[] } | null {
  if (s.kind !== 'expr' || s.expr.kind !== 'call' || s.expr.callee.kind !== 'id') return null;
  const number = serial.get(s.expr.callee.name);
  if (number === undefined) return null;
  const [first, ...args] = s.expr.args;
  if (first?.kind !== 'id' || first.name !== runtimeParam) throw new CompilerBug('codegen', `deviceMain: ${s.expr.callee.name} called without rt`);
  return { name: s.expr.callee.name, number, args };
}

function isHelperCall(e: JsExpr, name: string): boolean {
  return e.kind === 'call' && e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === runtimeParam && e.callee.prop === name;
}

/** Whether `s` contains a cluster call (rt.par or a serial cluster function). */
function dispatches(s: JsStmt, serial: ReadonlyMap<string, number>): boolean {
  let found = false;
  forEachNode([s], {
    expr(e) {
      if (e.kind !== 'call') return;
      if (isHelperCall(e, 'par') || (e.callee.kind === 'id' && serial.has(e.callee.name))) found = true;
    },
  });
  return found;
}

/** The arrays `exprs`/`stmts` index: read, and written (an indexed assignment target). */
function arraysIn(stmts: readonly JsStmt[]): { read: string[]; written: string[] } {
  const read = new Set<string>();
  const written = new Set<string>();
  forEachNode(stmts, {
    expr(e, target) {
      if (e.kind !== 'index' || e.object.kind !== 'id' || e.object.name === 'inputs') return;
      (target === true ? written : read).add(e.object.name);
    },
  });
  return { read: [...read], written: [...written] };
}

function syncBefore(exprs: readonly JsExpr[]): JsStmt[] {
  const { read } = arraysIn(exprs.map(exprStmt));
  return read.length === 0 ? [] : [exprStmt(awaited(helper('host', [arr(read.map(id))])))];
}

/** A statement main runs itself: its arrays on the host around it, its copying helpers awaited. */
function withHostArrays(s: JsStmt): JsStmt[] {
  const { read, written } = arraysIn([s]);
  const all = [...new Set([...read, ...written])];
  const before = all.length === 0 ? [] : [exprStmt(awaited(helper('host', [arr(all.map(id))])))];
  const after = written.length === 0 ? [] : [exprStmt(helper('hostWrote', [arr(written.map(id))]))];
  return [...before, awaitHelpers(s), ...after];
}

/** `s` with every call of a helper that copies whole arrays replaced by its awaited device form. */
function awaitHelpers(s: JsStmt): JsStmt {
  const go = (e: JsExpr): JsExpr => {
    const inner = mapChildren(e, go);
    if (inner.kind !== 'call' || inner.callee.kind !== 'member' || inner.callee.object.kind !== 'id' || inner.callee.object.name !== runtimeParam) return inner;
    const device = deviceForms.get(inner.callee.prop);
    return device === undefined ? inner : awaited(helper(device, inner.args));
  };
  return mapStmtExprs(s, go);
}

function mapStmtExprs(s: JsStmt, f: (e: JsExpr) => JsExpr): JsStmt {
  const body = (ss: readonly JsStmt[]): JsStmt[] => ss.map((x) => mapStmtExprs(x, f));
  switch (s.kind) {
    case 'decl':
      return s.init === null ? s : { ...s, init: f(s.init) };
    case 'assign':
      return { ...s, target: f(s.target), value: f(s.value) };
    case 'expr':
      return { ...s, expr: f(s.expr) };
    case 'for':
      return { ...s, from: f(s.from), to: f(s.to), body: body(s.body) };
    case 'while':
      return { ...s, test: f(s.test), body: body(s.body) };
    case 'if':
      return { ...s, test: f(s.test), then: body(s.then), else: body(s.else) };
    case 'block':
      return { ...s, body: body(s.body) };
    case 'return':
      return s.value === null ? s : { ...s, value: f(s.value) };
    case 'break':
    case 'comment':
    case 'function':
      return s;
    default:
      return s satisfies never;
  }
}
