// The multicore back end: the parallel module (codegen's `parallel` variant, whose clusters run
// through `rt.par` over chunks of their loops), run by `main` on the calling thread with a
// McRuntime (runtime.ts) that forks the calls worth it onto the process-wide thread pool
// (pool.ts). Compiling generates and compiles the module here and, with 2 threads or more,
// loads it into every worker (awaited: the workers' start and compile are paid at compile time,
// not in the first run). A run is the js back end's run (executor.ts `moduleRunner`: the same
// input checks, pool and runtime leases, `out` delivery and stats), synchronous while the
// module is loaded: the calling thread blocks in the fork–join. After a worker died the next
// run first loads the module on a fresh pool (that run returns a promise).
//
// With 1 thread no pool is used: the parallel module runs on the calling thread alone, its
// carried loops in the same fixed chunks, so results depend on `chunkLength` only, never on the
// thread count. Runs that count (`counters`) use the sequential module on the calling thread.
//
// Results of a run with 2 threads or more are typed arrays on SharedArrayBuffers (fresh per
// run, the caller's to keep, as costly to make as ArrayBuffers): `postMessage` shares them
// rather than copying them.

import type { Program } from '../../ir/types.js';
import type { InterfaceValue } from '../../ir/values.js';
import type { Plan } from '../../plan/types.js';
import { planMemory } from '../../memory/index.js';
import type { MemoryPlan } from '../../memory/types.js';
import { type Awaitable, type CompileOptions, type Executable, ExecutableDisposedError, type ExecutionBackend, type RunOptions, type RunResult } from '../backend.js';
import { type CompiledModule, compileModule, moduleRunner } from '../executor.js';
import { DEFAULT_CHUNK_LENGTH, Runtime } from '../helpers.js';
import { checkThreads, checkTuning } from './options.js';
import { acquirePool, availableThreads } from './pool.js';
import { DEFAULT_PARALLEL_THRESHOLD, McRuntime, type ParallelContext } from './runtime.js';
import type { ThreadPool } from './types.js';

/** Where an executable gets its thread pool (`acquirePool`; tests pass a fake one). */
export type PoolSource = (threads: number) => Awaitable<ThreadPool>;

/** The multicore back end's executable: the js one's run, over threads. */
export interface MulticoreExecutable extends Executable {
  /** The parallel module it runs (the plain variant). */
  readonly source: string;
  /** Threads its forks use, the calling thread included (1: no pool). */
  readonly threads: number;
}

/**
 * Compiles `program` for the multicore back end with pools from `pools`. Rejects with a
 * TypeError (InvalidOptionError, options.ts) for an invalid `threads`, `parallelThreshold` or
 * `chunkLength`, and with WorkerDiedError when a worker dies while the module loads.
 */
export async function compileMulticore(program: Program, plan: Plan, options: CompileOptions, pools: PoolSource): Promise<MulticoreExecutable> {
  const backend = 'multicore';
  if (options.threads !== undefined) checkThreads(options.threads, 'threads');
  checkTuning(options.parallelThreshold, options.chunkLength);
  const threads = options.threads ?? availableThreads();
  const threshold = options.parallelThreshold ?? DEFAULT_PARALLEL_THRESHOLD;
  const chunkLength = options.chunkLength ?? DEFAULT_CHUNK_LENGTH;
  const memory: MemoryPlan = options.memory ?? planMemory(program, plan);
  const limit = options.maxWhileIterations ?? Infinity;
  const fastMath = options.fastMath === true;
  const plain = compileModule(program, plan, memory, { counters: false, parallel: true, fastMath });
  const context: ParallelContext = { threads: 1, threshold, module: null };
  const forks = threads >= 2;
  const runner = moduleRunner({
    backend,
    program,
    memory,
    options,
    plain,
    counted: () => compileModule(program, plan, memory, { counters: true, fastMath }),
    sharedPool: forks,
    makeRuntime: (module: CompiledModule, record, pool, poisoned) =>
      module === plain
        ? new McRuntime(module.tables, options.file, limit, record, pool, poisoned, context, module.fns, chunkLength, module.generated.workFunctions.map((w) => w.wholeSource))
        : new Runtime(module.tables, options.file, limit, record, pool, poisoned),
    threadsOf: (module) => (module === plain ? context.threads : 1),
    begin: (rt, flat) => {
      if (rt instanceof McRuntime) rt.begin(program, flat);
    },
    end: (rt) => {
      if (rt instanceof McRuntime) rt.end();
    },
  });

  // Loads the module into a pool's workers (one load at a time: runs that find it missing share it).
  let loading: Promise<void> | null = null;
  const load = (): Promise<void> =>
    (loading ??= (async () => {
      try {
        const pool = await pools(threads);
        const module = await pool.load(plain.generated.text);
        if (runner.disposed) {
          module.unload();
          throw new ExecutableDisposedError(backend, program.name, 'run');
        }
        context.module = module;
        context.threads = Math.min(threads, pool.threads);
        // A pool of one thread (the machine's limit) forks nothing: the module runs here alone.
        if (context.threads < 2) {
          module.unload();
          context.module = null;
        }
      } finally {
        loading = null;
      }
    })());
  if (forks) await load();

  const executable = {
    backend,
    program,
    plan,
    memory,
    threads,
    run(inputs: readonly InterfaceValue[], runOptions: RunOptions = {}): Awaitable<RunResult> {
      // After a worker died (during this executable's run or anyone's), load on a fresh pool first.
      if (context.module !== null && !context.module.alive) context.module = null;
      if (forks && context.module === null && context.threads >= 2 && runOptions.counters !== true && !runner.disposed) {
        return load().then(() => runner.run(inputs, runOptions));
      }
      return runner.run(inputs, runOptions);
    },
    dispose(): void {
      runner.dispose();
      context.module?.unload();
      context.module = null;
    },
  };
  return Object.defineProperties(executable, {
    source: { get: (): string => runner.source, enumerable: false },
    disposed: { get: (): boolean => runner.disposed, enumerable: false },
  }) as typeof executable & Pick<MulticoreExecutable, 'source' | 'disposed'>;
}

/** The multicore back end: its registry name, and executables that say their threads. */
export interface MulticoreBackend extends ExecutionBackend {
  readonly name: 'multicore';
  compile(program: Program, plan: Plan, options?: CompileOptions): Promise<MulticoreExecutable>;
}

/** The registered multicore back end: its pool is the process-wide one (pool.ts `acquirePool`). */
export const multicoreBackend: MulticoreBackend = {
  name: 'multicore',
  description: 'The JavaScript loop nests split into chunks that the calling thread and a pool of worker threads share over SharedArrayBuffers',
  compile: (program: Program, plan: Plan, options: CompileOptions = {}) => compileMulticore(program, plan, options, acquirePool),
};
