// A small JavaScript AST: what the code generator builds and the printer prints.
//
// Generated code never splices user text. Identifiers are made by the generator (`v12`, `i0`)
// and the printer re-checks each against a safe pattern; numbers are re-printed from their
// value; comments come only from the generator's own fixed wording. So a VarName such as
// `__proto__` or `x\n;alert(1)` cannot reach the generated source.

export type JsBinaryOp =
  | '+' | '-' | '*' | '/' | '%'
  | '|' | '&' | '^' | '<<' | '>>' | '>>>'
  | '===' | '!==' | '<' | '<=' | '>' | '>='
  | '&&' | '||';

/**
 * `void` is only ever applied to 0: `void 0` is `undefined`, which no identifier may name.
 * `await` appears only in the device variant's async main (codegen/device.ts).
 */
export type JsUnaryOp = '-' | '!' | '~' | 'void' | 'await';

export type JsExpr =
  | { readonly kind: 'num'; readonly value: number }
  | { readonly kind: 'id'; readonly name: string }
  | { readonly kind: 'binary'; readonly op: JsBinaryOp; readonly lhs: JsExpr; readonly rhs: JsExpr }
  | { readonly kind: 'unary'; readonly op: JsUnaryOp; readonly arg: JsExpr }
  | { readonly kind: 'cond'; readonly test: JsExpr; readonly then: JsExpr; readonly else: JsExpr }
  | { readonly kind: 'call'; readonly callee: JsExpr; readonly args: readonly JsExpr[] }
  /** `object.prop`; `prop` is one of the generator's own property names, checked when printed. */
  | { readonly kind: 'member'; readonly object: JsExpr; readonly prop: string }
  | { readonly kind: 'index'; readonly object: JsExpr; readonly index: JsExpr }
  | { readonly kind: 'array'; readonly elems: readonly JsExpr[] }
  /**
   * `(name = value)`: assigns one of the generator's temporaries inside an expression, so an
   * inline check can test a computed index and then use it without evaluating it twice (and
   * without moving its evaluation out of the expression, which would change which of two
   * faults is raised first). Temporaries are declared with `let` at the top of their function.
   */
  | { readonly kind: 'set'; readonly name: string; readonly value: JsExpr }
  /** `(first, then)`: evaluates `first` for its temporaries, then is `then`. */
  | { readonly kind: 'seq'; readonly first: JsExpr; readonly then: JsExpr };

export type JsStmt =
  | { readonly kind: 'decl'; readonly mutable: boolean; readonly name: string; readonly init: JsExpr | null }
  | { readonly kind: 'assign'; readonly target: JsExpr; readonly op: '=' | '+='; readonly value: JsExpr }
  | { readonly kind: 'expr'; readonly expr: JsExpr }
  /** `for (let v = from; v < to; v++)`, or `for (let v = to - 1; v >= from; v--)` when `down`. */
  | {
      readonly kind: 'for';
      readonly index: string;
      readonly from: JsExpr;
      readonly to: JsExpr;
      readonly down: boolean;
      readonly body: readonly JsStmt[];
    }
  | { readonly kind: 'while'; readonly test: JsExpr; readonly body: readonly JsStmt[] }
  | { readonly kind: 'if'; readonly test: JsExpr; readonly then: readonly JsStmt[]; readonly else: readonly JsStmt[] }
  | { readonly kind: 'block'; readonly body: readonly JsStmt[] }
  | { readonly kind: 'break' }
  | { readonly kind: 'return'; readonly value: JsExpr | null }
  /** A comment in the generator's own words (never user text). */
  | { readonly kind: 'comment'; readonly text: string }
  | {
      readonly kind: 'function';
      readonly name: string;
      readonly params: readonly string[];
      readonly body: readonly JsStmt[];
      /** An `async function` (the device variant's main). */
      readonly async?: boolean;
    };

// Constructors, so that code building code reads like the code it builds.

export const num = (value: number): JsExpr => ({ kind: 'num', value });
export const id = (name: string): JsExpr => ({ kind: 'id', name });
export const bin = (op: JsBinaryOp, lhs: JsExpr, rhs: JsExpr): JsExpr => ({ kind: 'binary', op, lhs, rhs });
export const un = (op: JsUnaryOp, arg: JsExpr): JsExpr => ({ kind: 'unary', op, arg });
export const cond = (test: JsExpr, then: JsExpr, otherwise: JsExpr): JsExpr => ({
  kind: 'cond',
  test,
  then,
  else: otherwise,
});
export const call = (callee: JsExpr, args: readonly JsExpr[]): JsExpr => ({ kind: 'call', callee, args });
export const member = (object: JsExpr, prop: string): JsExpr => ({ kind: 'member', object, prop });
export const index = (object: JsExpr, ix: JsExpr): JsExpr => ({ kind: 'index', object, index: ix });
export const arr = (elems: readonly JsExpr[]): JsExpr => ({ kind: 'array', elems });
export const set = (name: string, value: JsExpr): JsExpr => ({ kind: 'set', name, value });
export const seq = (first: JsExpr, then: JsExpr): JsExpr => ({ kind: 'seq', first, then });
export const mathCall = (fn: string, args: readonly JsExpr[]): JsExpr => call(member(id('Math'), fn), args);

export const constDecl = (name: string, init: JsExpr): JsStmt => ({ kind: 'decl', mutable: false, name, init });
export const letDecl = (name: string, init: JsExpr | null): JsStmt => ({ kind: 'decl', mutable: true, name, init });
export const assign = (target: JsExpr, value: JsExpr): JsStmt => ({ kind: 'assign', target, op: '=', value });
export const exprStmt = (expr: JsExpr): JsStmt => ({ kind: 'expr', expr });
export const comment = (text: string): JsStmt => ({ kind: 'comment', text });

/** Sum of terms, folding away zeros: index arithmetic stays readable. */
export function add(a: JsExpr, b: JsExpr): JsExpr {
  if (a.kind === 'num' && a.value === 0) return b;
  if (b.kind === 'num' && b.value === 0) return a;
  return bin('+', a, b);
}

/** Product, folding away ones. */
export function mul(a: JsExpr, b: JsExpr): JsExpr {
  if (a.kind === 'num' && a.value === 1) return b;
  if (b.kind === 'num' && b.value === 1) return a;
  return bin('*', a, b);
}

/**
 * `e` with `f` applied to each of its direct subexpressions, a call's callee included unless
 * `callees` is false (the loop passes keep `Math.floor` and `rt.…` callees as they are).
 */
export function mapChildren(e: JsExpr, f: (e: JsExpr) => JsExpr, callees = true): JsExpr {
  switch (e.kind) {
    case 'num':
    case 'id':
      return e;
    case 'binary':
      return { ...e, lhs: f(e.lhs), rhs: f(e.rhs) };
    case 'unary':
      return { ...e, arg: f(e.arg) };
    case 'cond':
      return { ...e, test: f(e.test), then: f(e.then), else: f(e.else) };
    case 'call':
      return { ...e, callee: callees ? f(e.callee) : e.callee, args: e.args.map(f) };
    case 'member':
      return { ...e, object: f(e.object) };
    case 'index':
      return { ...e, object: f(e.object), index: f(e.index) };
    case 'array':
      return { ...e, elems: e.elems.map(f) };
    case 'set':
      return { ...e, value: f(e.value) };
    case 'seq':
      return { ...e, first: f(e.first), then: f(e.then) };
    default:
      return e satisfies never;
  }
}

/** A renaming of identifiers (locals, parameters, loop indices). */
export type Rename = (name: string) => string;

/** `e` with every identifier renamed. */
export function renameExpr(e: JsExpr, rename: Rename): JsExpr {
  const go = (x: JsExpr): JsExpr => renameExpr(x, rename);
  switch (e.kind) {
    case 'num':
      return e;
    case 'id':
      return { kind: 'id', name: rename(e.name) };
    case 'binary':
      return { ...e, lhs: go(e.lhs), rhs: go(e.rhs) };
    case 'unary':
      return { ...e, arg: go(e.arg) };
    case 'cond':
      return { ...e, test: go(e.test), then: go(e.then), else: go(e.else) };
    case 'call':
      return { ...e, callee: go(e.callee), args: e.args.map(go) };
    case 'member':
      return { ...e, object: go(e.object) };
    case 'index':
      return { ...e, object: go(e.object), index: go(e.index) };
    case 'array':
      return { ...e, elems: e.elems.map(go) };
    case 'set':
      // Temporaries are function-level and used within one expression: shared by the copies.
      return { ...e, value: go(e.value) };
    case 'seq':
      return { ...e, first: go(e.first), then: go(e.then) };
    default:
      return e satisfies never;
  }
}

/** `s` with every identifier renamed, declared ones included (not into nested functions). */
export function renameStmt(s: JsStmt, rename: Rename): JsStmt {
  const ex = (x: JsExpr): JsExpr => renameExpr(x, rename);
  const st = (x: JsStmt): JsStmt => renameStmt(x, rename);
  switch (s.kind) {
    case 'decl':
      return { ...s, name: rename(s.name), init: s.init === null ? null : ex(s.init) };
    case 'assign':
      return { ...s, target: ex(s.target), value: ex(s.value) };
    case 'expr':
      return { ...s, expr: ex(s.expr) };
    case 'for':
      return { ...s, index: rename(s.index), from: ex(s.from), to: ex(s.to), body: s.body.map(st) };
    case 'while':
      return { ...s, test: ex(s.test), body: s.body.map(st) };
    case 'if':
      return { ...s, test: ex(s.test), then: s.then.map(st), else: s.else.map(st) };
    case 'block':
      return { ...s, body: s.body.map(st) };
    case 'return':
      return { ...s, value: s.value === null ? null : ex(s.value) };
    case 'break':
    case 'comment':
    case 'function':
      return s;
    default:
      return s satisfies never;
  }
}

/** What `forEachNode` calls; each is optional. */
export interface NodeVisitor {
  /**
   * Every expression, sub-expressions included. `target` is true only for the whole target of an
   * assignment (`a[i] = …`), which writes rather than reads: unroll-and-jam needs to tell the two
   * apart (its sub-expressions, `a` and `i`, are read and get false).
   */
  expr?(e: JsExpr, target: boolean): void;
  /** Every statement, before its expressions and nested statements. */
  stmt?(s: JsStmt): void;
}

/**
 * Visits statements and every expression in them, each node before its children and children in
 * source order (so names are met in the order the printed code reads them: the callers' lists of
 * parameters and temporaries follow it). Nested functions are not entered: each generated
 * function is analysed on its own.
 */
export function forEachNode(stmts: readonly JsStmt[], visitor: NodeVisitor): void {
  const expr = (e: JsExpr, target = false): void => {
    visitor.expr?.(e, target);
    switch (e.kind) {
      case 'num':
      case 'id':
        return;
      case 'binary':
        expr(e.lhs);
        expr(e.rhs);
        return;
      case 'unary':
        expr(e.arg);
        return;
      case 'cond':
        expr(e.test);
        expr(e.then);
        expr(e.else);
        return;
      case 'call':
        expr(e.callee);
        e.args.forEach((a) => expr(a));
        return;
      case 'member':
        expr(e.object);
        return;
      case 'index':
        expr(e.object);
        expr(e.index);
        return;
      case 'array':
        e.elems.forEach((a) => expr(a));
        return;
      case 'set':
        expr(e.value);
        return;
      case 'seq':
        expr(e.first);
        expr(e.then);
        return;
      default:
        e satisfies never;
    }
  };
  const stmt = (s: JsStmt): void => {
    visitor.stmt?.(s);
    switch (s.kind) {
      case 'decl':
        if (s.init !== null) expr(s.init);
        return;
      case 'assign':
        expr(s.target, true);
        expr(s.value);
        return;
      case 'expr':
        expr(s.expr);
        return;
      case 'for':
        expr(s.from);
        expr(s.to);
        s.body.forEach(stmt);
        return;
      case 'while':
        expr(s.test);
        s.body.forEach(stmt);
        return;
      case 'if':
        expr(s.test);
        s.then.forEach(stmt);
        s.else.forEach(stmt);
        return;
      case 'block':
        s.body.forEach(stmt);
        return;
      case 'return':
        if (s.value !== null) expr(s.value);
        return;
      case 'break':
      case 'comment':
      case 'function':
        return;
      default:
        s satisfies never;
    }
  };
  stmts.forEach(stmt);
}
