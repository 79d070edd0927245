// The reference interpreter's public face: run a program, or evaluate the pieces of one
// (scalar expressions, lambdas, output shapes) the fused executor shares with it.

export { checkInputs, interpret, type InterpretOptions } from './interpret.js';
export { type EvalEnv, applyLambda, evalScalarExpr, flatOffset, lambdaApplier, shapeText, withLocals } from './eval.js';
export { combinatorOutputShape, evalCombinator, forEachIndex } from './combinators.js';
