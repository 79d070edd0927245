// Static sizes: the shapes of arrays known at compile time from the entry shapes (and entry
// scalar values) a program is planned for. The `bytes` cost and the `recompute` term weigh
// arrays by them; the planner (through the graph) and the checker both read them. They are
// facts about values, not fusion rules, so sharing them keeps the checker independent where
// it matters (docs/DESIGN.md).

import { binary, cast, mathFn, unary } from '../ir/scalarOps.js';
import { outputShapeOf } from '../ir/rules.js';
import type { Block, Expr, Program, Shape, VarName } from '../ir/types.js';

/** What the planner knows of the entry: array shapes and scalar values, by entry or component name. */
export type EntrySizes = Readonly<Record<string, Shape | number>>;

/**
 * Shapes of every array whose shape follows at compile time from the entry sizes: entry
 * arrays as given, `generate` by evaluating its shape expressions, the others from their
 * inputs, an `if` output when both branches agree. `while` outputs and parameters are left
 * out (unknown): their shapes may change from one iteration to the next.
 */
export function staticSizes(program: Program, entry: EntrySizes): ReadonlyMap<VarName, Shape> {
  const shapes = new Map<VarName, Shape>();
  const scalars = new Map<VarName, number>();
  for (const p of program.params) {
    for (const comp of p.components) {
      // Own entries only: with a plain `{}`, a parameter named `constructor` found Object's.
      const given = (Object.hasOwn(entry, comp.name) ? entry[comp.name] : undefined) ?? (Object.hasOwn(entry, p.name) ? entry[p.name] : undefined);
      if (given === undefined) continue;
      if (comp.kind === 'array' && typeof given !== 'number') shapes.set(comp.name, given);
      if (comp.kind === 'scalar' && typeof given === 'number') scalars.set(comp.name, given);
    }
  }
  const evalExpr = (e: Expr): number | undefined => {
    try {
      return evaluateStatic(e, shapes, scalars);
    } catch {
      return undefined; // a division by zero: not known statically
    }
  };
  const visit = (b: Block): void => {
    for (const s of b.stmts) {
      const from = (name: VarName | undefined): Shape | undefined => (name === undefined ? undefined : shapes.get(name));
      let shape: Shape | undefined;
      switch (s.kind) {
        case 'scalar': {
          const value = evalExpr(s.expr);
          if (value !== undefined) scalars.set(s.name, value);
          continue;
        }
        case 'if':
          visit(s.then);
          visit(s.else);
          // Known when both branches give the same static shape.
          s.outs.forEach((o, k) => {
            const a = shapes.get(s.then.results[k]!);
            const b = shapes.get(s.else.results[k]!);
            if (o.kind === 'array' && a !== undefined && b !== undefined && a.join() === b.join()) shapes.set(o.name, a);
          });
          continue;
        case 'while':
          visit(s.cond);
          visit(s.body);
          continue;
        default: {
          // A combinator: its output shape by its rule (src/ir/rules.ts).
          const rule = outputShapeOf(s);
          if (rule.kind === 'sizes') {
            const dims = rule.sizes.map(evalExpr);
            shape = dims.every((d) => d !== undefined) ? (dims as number[]) : undefined;
          } else {
            const input = from(rule.like);
            shape = rule.dropInnermost ? input?.slice(0, -1) : input;
          }
        }
      }
      if (shape !== undefined) for (const o of s.outs) shapes.set(o.name, shape);
    }
  };
  visit(program.body);
  return shapes;
}

/**
 * The value of a scalar expression when static; undefined when it reads array contents or unknowns.
 * Exported for the memory planner's loop-invariant sizes (src/memory/sizes.ts).
 */
export function evaluateStatic(e: Expr, shapes: ReadonlyMap<VarName, Shape>, scalars: ReadonlyMap<VarName, number>): number | undefined {
  const ev = (x: Expr): number | undefined => evaluateStatic(x, shapes, scalars);
  switch (e.kind) {
    case 'const':
      return e.value;
    case 'var':
      return scalars.get(e.name);
    case 'dim':
      return shapes.get(e.array)?.[e.axis];
    case 'index':
      return undefined;
    case 'unary': {
      const a = ev(e.arg);
      return a === undefined ? undefined : unary(e.op, e.type, a);
    }
    case 'call': {
      const a = ev(e.arg);
      return a === undefined ? undefined : mathFn(e.fn, e.type, a);
    }
    case 'cast': {
      const a = ev(e.arg);
      return a === undefined ? undefined : cast(e.to, a);
    }
    case 'binary': {
      const a = ev(e.lhs);
      const b = ev(e.rhs);
      return a === undefined || b === undefined ? undefined : binary(e.op, e.lhs.type, a, b);
    }
    case 'select': {
      const c = ev(e.cond);
      return c === undefined ? undefined : c !== 0 ? ev(e.then) : ev(e.else);
    }
    default:
      return e satisfies never;
  }
}
