// The reference interpreter's public face: run a program, or evaluate the pieces of one
// (scalar expressions, lambdas, output shapes).

export { checkInputs, interpret, type InterpretOptions } from './interpret.js';
export { type EvalEnv, type LambdaApplier, type Tainted, evalScalarExpr, flatOffset, lambdaApplier, shapeText } from './eval.js';
export { combinatorOutputShape, evalCombinator, forEachIndex } from './combinators.js';
export { type Fault, FaultLog } from './poison.js';
