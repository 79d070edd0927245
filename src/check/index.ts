// The checker's public functions: the independent cross-check of the planner (docs/DESIGN.md).
// The validator (rules of PLANNING.md "A plan and when it is valid"), the cost evaluator
// (PLANNING.md "Cost functions") and the brute force (the least-cost valid plan of a small
// graph), each for plans of programs (IR) and of JSON graphs (docs/PLAN-FORMAT.md); and the
// memory-plan validator (./memory.ts, programs only). They build their own graph (./reads.ts
// from IR, ./jsonGraph.ts from JSON) or walk (./memory.ts) and share no code with src/plan's
// strategies, the planner's graph builder or src/memory's planner; nothing in src/plan or
// src/memory imports this folder (test/check/imports.test.ts enforces both).

export {
  assertValidGraphPlan,
  assertValidPlan,
  formatViolation,
  validateBlockPlan,
  validateGraphPlan,
  validatePlan,
  type PlanViolation,
  type ViolationRule,
} from './validate.js';
export { evaluateBlockPlan, evaluateGraphPlan, evaluatePlan, type EvaluateOptions, type Evaluation } from './evaluate.js';
export { bruteForce, bruteForceGraph, bruteForceNodeLimit, type BruteForceResult } from './bruteforce.js';
export {
  assertValidMemoryPlan,
  formatMemoryViolation,
  validateMemoryPlan,
  type MemoryRule,
  type MemoryViolation,
} from './memory.js';
