// The `arrayfuse` command line: argument parsing (commander), file I/O, and rendering of
// diagnostics. Every command goes through the driver; this module only translates between the
// terminal and it.
//
// Exit codes: 0 success, 1 the user's error (a diagnostic, no stack trace), 2 a usage error
// (bad flags, a malformed flag value, no command: a diagnostic or the help, on stderr), 3 an
// internal error (our bug, said so).
//
// Inputs are keyed by parameter name in null-prototype records and tested with Object.hasOwn:
// a parameter may be called `__proto__`, `constructor` or `toString`.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CompilerBug, UserError, diagnosticPosition, renderDiagnostic, userError } from '../diagnostics/index.js';
import type { InputSignature } from '../lower/index.js';
import { printProgram } from '../ir/printer.js';
import { isInteger } from '../ir/scalarOps.js';
import { programToJson } from '../ir/json.js';
import { componentsOf, type InterfaceValue, type ScalarValue } from '../ir/values.js';
import { Compiler, entrySizes, planGraphJson, signatureOf, type NamedInputs, type PlanningOptions } from '../driver/index.js';
import { THREADS_ENV, type BackendChoice } from '../driver/threads.js';
import { planMemory, type MemoryPlan } from '../memory/index.js';
import { costNames, defaultCostText } from '../plan/cost.js';
import { DEFAULT_TIME_LIMIT_SECONDS, type PlannedGraphs } from '../plan/index.js';
import { DEFAULT_PROGRESS_EVERY_MS, type PlanProgress } from '../plan/progress.js';
import { emitLp, emitMps, renderPlan, type PlanFormat } from '../report/render.js';
import type { BlockPlan, Strategy } from '../plan/types.js';
import { backends, type BackendName, emitJs, type Executable, isWebgpuExecutable, InvalidOptionError, isThreadCount, MAX_THREADS, threadCountOf, type RunStats } from '../runtime/index.js';
import { ensureDirectory, parseArgAssignment, parseRandomSpec, randomValue, readValueFile, writeFile, writeValueFile } from '../runtime/io/index.js';
import { parseCost } from '../plan/cost.js';
import { bugReport } from './bugReport.js';
import { progressLine } from './progress.js';
import { runDemo } from './demo.js';
import { formatValue } from './format.js';
import { cachedMachine, machineLine, machineSource, renderRoofline, type CachedMachine } from './roofline.js';
import type { Roofline } from '../runtime/index.js';

/** Where output goes; tests pass their own to capture it. */
export interface Terminal {
  out(text: string): void;
  err(text: string): void;
}

const processTerminal: Terminal = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
};

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

/** A diagnostic about a command-line value (not about the program or its data): exit 2. */
class UsageError extends UserError {}

/** Runs a parse of a flag's value; its diagnostics become usage errors (exit 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof UserError && !(e instanceof UsageError)) throw new UsageError(e.diagnostics);
    throw e;
  }
}

/** A record keyed by parameter names, which may be any identifier (`__proto__` included). */
function byName<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function readSource(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw userError('E500', `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function compilerFor(file: string, entry: string | undefined, threads?: number, fastMath?: boolean, backend?: BackendName): Compiler {
  return new Compiler(readSource(file), { fileName: file, entry, threads, fastMath, backend });
}

/** `--threads N`: an integer from 1 to MAX_THREADS (commander reports anything else as a usage error). */
function parseThreads(text: string): number {
  const threads = threadCountOf(text);
  if (!isThreadCount(threads)) {
    throw new InvalidArgumentError(`expected an integer number of threads from 1 to ${MAX_THREADS}.`);
  }
  return threads;
}

/** Above this many loops, `plan --format svg` warns that the layout is slow. */
const manyLoops = 150;

/** Loops (clusters) of a plan, its blocks' included. */
function loopCount(block: BlockPlan): number {
  return block.clusters.length + Object.values(block.children).reduce((n, blocks) => n + blocks.reduce((m, b) => m + loopCount(b), 0), 0);
}

function parseTimeLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  // Decimal only: Number() would also take `0x10` and `0b1`.
  if (!/^\s*(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) || !Number.isFinite(seconds)) {
    throw new UsageError(userError('E600', `--time-limit ${JSON.stringify(text)}: expected a non-negative number of seconds`).diagnostics);
  }
  return seconds;
}

interface PlanFlags {
  strategy: Strategy;
  /** Undefined: the back end's default cost (driver/backendCost.ts). */
  cost?: string;
  timeLimit?: string;
  /** false with --no-progress. */
  progress: boolean;
}

/** The planning options of the flags; progress lines go to `term.err` unless --no-progress. */
function planningOptions(flags: PlanFlags, term: Terminal): PlanningOptions {
  if (flags.cost !== undefined) usage(() => parseCost(flags.cost!));
  return {
    strategy: flags.strategy,
    cost: flags.cost,
    timeLimitSeconds: parseTimeLimit(flags.timeLimit),
    ...(flags.progress ? { onProgress: (p: PlanProgress) => term.err(progressLine(p)) } : {}),
  };
}

/**
 * `--static name=VALUE`: a scalar parameter's value, a compile-time constant (docs/LANGUAGE.md,
 * "Static arguments"). Typed by the parameter, like `--arg`; E525 (a usage error, at the entry
 * or the parameter) when `name` is no parameter of the entry or an array parameter.
 */
function staticArgument(compiler: Compiler, text: string): { readonly name: string; readonly value: ScalarValue } {
  const { name, value } = usage(() => parseArgAssignment(text, (n) => compiler.scalarInputType(n), '--static'));
  const entry = compiler.entry;
  const param = entry.params.find((p) => p.name === name);
  if (param === undefined) {
    const known = entry.params.map((p) => p.name).join(', ') || 'none';
    throw new UsageError(
      userError('E525', `--static ${name}: '${entry.name}' has no parameter named '${name}' (its parameters: ${known})`, { file: compiler.file, span: entry.nameSpan }).diagnostics,
    );
  }
  // The annotation says so even where inference fails without the inputs (a `for` over the scalar).
  if (param.type?.kind === 'array' || compiler.parameterType(name)?.kind === 'array') {
    throw new UsageError(
      userError('E525', `--static ${name}: '${name}' is an array parameter; only a scalar parameter takes a static value (an array's shape is static already: give it with --shape, or run with the array)`, {
        file: compiler.file,
        span: param.span,
      }).diagnostics,
    );
  }
  return { name, value };
}

/**
 * `--shape name=f64[1000,64]` (and `--shape m=1000` for a scalar) and `--static m=1000` → a
 * signature; undefined when neither is given.
 */
function shapeSignature(compiler: Compiler, shapes: readonly string[], statics: readonly string[] = []): Record<string, InputSignature> | undefined {
  if (shapes.length === 0 && statics.length === 0) return undefined;
  const given = byName<InputSignature>();
  for (const text of statics) {
    const { name, value } = staticArgument(compiler, text);
    if (Object.hasOwn(given, name)) throw new UsageError(userError('E524', `--static: parameter '${name}' was given more than once`).diagnostics);
    given[name] = { kind: 'scalar', elem: value.elem, value: value.value };
  }
  for (const text of shapes) {
    const eq = text.indexOf('=');
    if (eq <= 0) throw new UsageError(userError('E523', `--shape ${JSON.stringify(text)}: expected name=f64[1000,64] or name=VALUE for a scalar`).diagnostics);
    const name = text.slice(0, eq).trim();
    if (Object.hasOwn(given, name)) throw new UsageError(userError('E524', `--shape ${name}: parameter '${name}' was given more than once (by --static or --shape)`).diagnostics);
    const type = compiler.parameterType(name);
    if (type?.kind === 'scalar') {
      const { value } = usage(() => parseArgAssignment(text, () => type.elem));
      given[name] = { kind: 'scalar', elem: value.elem, value: value.value };
    } else {
      const spec = usage(() => parseRandomSpec(text.slice(eq + 1), `--shape ${name}`));
      if (spec.shape === null) throw new UsageError(userError('E523', `--shape ${name}: '${name}' is an array; give its shape, e.g. ${name}=f64[1000]`).diagnostics);
      given[name] = { kind: 'array', elem: type?.kind === 'array' ? type.elem : spec.elem, shape: spec.shape };
    }
  }
  // Parameters without a --shape keep their annotated or inferred type, with unknown sizes.
  return given;
}

interface InputFlags {
  input: string[];
  arg: string[];
  static: string[];
  random: string[];
  seed: string;
}

/**
 * Inputs from `--input name=FILE`, `--arg name=VALUE` and `--random name=SPEC`. Read before any
 * type inference, as the API does: only an `--arg` asks for its parameter's type (see
 * Compiler.scalarInputType), so an unannotated program runs whenever its inputs type it.
 */
function gatherInputs(compiler: Compiler, flags: InputFlags): NamedInputs {
  const inputs = byName<InterfaceValue>();
  const seed = Number(flags.seed);
  if (flags.seed.trim() === '' || !Number.isSafeInteger(seed)) throw new UsageError(userError('E524', `--seed ${JSON.stringify(flags.seed)}: expected an integer`).diagnostics);
  const put = (name: string, value: InterfaceValue, flag: string): void => {
    if (Object.hasOwn(inputs, name)) throw new UsageError(userError('E524', `${flag}: parameter '${name}' was given more than once`).diagnostics);
    inputs[name] = value;
  };
  const split = (text: string, flag: string): [string, string] => {
    const eq = text.indexOf('=');
    if (eq <= 0) throw new UsageError(userError('E524', `${flag} ${JSON.stringify(text)}: expected name=...`).diagnostics);
    return [text.slice(0, eq).trim(), text.slice(eq + 1)];
  };
  for (const text of flags.input) {
    const [name, path] = split(text, '--input');
    // 64-bit integer .npy data (NumPy's default integer) is read as the parameter's integer type.
    const type = compiler.parameterType(name);
    const integer = type?.kind === 'array' && typeof type.elem === 'string' && isInteger(type.elem) ? type.elem : undefined;
    put(name, readValueFile(path, integer === undefined ? {} : { integer }), '--input');
  }
  for (const text of flags.arg) {
    const { name, value } = usage(() => parseArgAssignment(text, (n) => compiler.scalarInputType(n)));
    put(name, value, '--arg');
  }
  // A run specialises the program to every scalar it is given, so on `run` a `--static` is an
  // `--arg` that must name a scalar parameter.
  for (const text of flags.static) {
    const { name, value } = staticArgument(compiler, text);
    put(name, value, '--static');
  }
  flags.random.forEach((text, k) => {
    const [name, spec] = split(text, '--random');
    put(name, randomValue(usage(() => parseRandomSpec(spec)), seed + k), '--random');
  });
  return inputs;
}

export function buildProgram(term: Terminal): Command {
  const program = new Command('arrayfuse')
    .description('Optimal fusion of data-parallel array programs (gathers included) with Integer Linear Programming')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => term.out(s), writeErr: (s) => term.err(s) })
    .showHelpAfterError(false);

  const strategyOption = () =>
    new Option('--strategy <name>', 'fusion strategy').choices(strategies as string[]).default('ilp');
  const costOption = () =>
    new Option(
      '--cost <cost>',
      `cost function to minimise: ${costNames.map((c) => c.name).join(', ')}, or a weighted sum such as "2*reads + writes" (default: the back end's, ${defaultCostText} for js and multicore; for webgpu that plus a kernel launch's price per cluster, docs/PLANNING.md "Costs per back end")`,
    );
  const backendOption = (what: string) => new Option('--backend <name>', what).choices(Object.keys(backends));
  const timeLimitOption = () =>
    new Option(
      '--time-limit <seconds>',
      `limit the ILP strategy's whole planning (graphs, greedy walks, building and solving every block's ILP; loading HiGHS aside) to this long, within a small overshoot, and keep the best plan found, with its bound and gap (default ${DEFAULT_TIME_LIMIT_SECONDS})`,
    );
  const progressOption = () =>
    new Option('--no-progress', `do not report a planning call that runs past ${DEFAULT_PROGRESS_EVERY_MS} ms on stderr (block, incumbent, bound, gap, every ${DEFAULT_PROGRESS_EVERY_MS} ms)`);
  const threadsOption = () =>
    new Option(
      '--threads <n>',
      `threads that run the fused loops, this one included: 1 runs the js back end, more the multicore one (default ${THREADS_ENV}, else the machine's available parallelism; more than its cores is slow)`,
    ).argParser(parseThreads);
  const fastMathOption = () =>
    new Option(
      '--fast-math',
      'allow regrouping floating-point + and * folds (faster sums and dot products, within the error bound of docs/LANGUAGE.md "Floating-point reassociation"); default: results bit for bit the interpreter\'s',
    );

  const staticOption = () =>
    new Option('--static <name=value>', 'a scalar parameter\'s value as a compile-time constant: a for loop over it unrolls, shapes and compile-time ifs may depend on it (repeatable; docs/LANGUAGE.md "Static arguments")').argParser(collect).default([]);

  program
    .command('check')
    .description('parse and type-check a program; print the entry and its parameter types')
    .argument('<file>', '.fuse source file')
    .option('--entry <name>', 'the def to check (default: main, else the last def)')
    .option('--shape <name=type[dims]>', 'check for these input shapes (repeatable; needed when a compile-time if depends on sizes)', collect, [])
    .addOption(staticOption())
    .action((file: string, flags: { entry?: string; shape: string[]; static: string[] }) => {
      const compiler = compilerFor(file, flags.entry);
      const lowered = compiler.lower(shapeSignature(compiler, flags.shape, flags.static));
      const params = lowered.params.map((p) => `${p.name}: ${describeInterface(p)}`).join(', ');
      const results = lowered.results.map(describeInterface).join(', ');
      term.out(`ok: ${lowered.name}(${params}) -> ${results}`);
    });

  program
    .command('lower')
    .description('print the core IR of a program (the paper\'s notation, or JSON)')
    .argument('<file>', '.fuse source file')
    .option('--entry <name>', 'the def to lower')
    .option('--shape <name=type[dims]>', 'specialise to an input shape (repeatable)', collect, [])
    .addOption(staticOption())
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((file: string, flags: { entry?: string; shape: string[]; static: string[]; format: 'text' | 'json' }) => {
      const compiler = compilerFor(file, flags.entry);
      const lowered = compiler.lower(shapeSignature(compiler, flags.shape, flags.static));
      term.out(flags.format === 'json' ? programToJson(lowered, 2) : printProgram(lowered));
    });

  program
    .command('plan')
    .description('find the fusion plan of a program and show it')
    .argument('<file>', '.fuse source file, or a dependence graph as JSON (docs/PLAN-FORMAT.md)')
    .option('--entry <name>', 'the def to plan')
    .addOption(strategyOption())
    .addOption(costOption())
    .addOption(timeLimitOption())
    .addOption(progressOption())
    .option('--shape <name=type[dims]>', 'input shapes, for size-weighted costs (repeatable)', collect, [])
    .addOption(staticOption())
    .addOption(new Option('--format <format>', 'output format; dot and svg draw the plan picture (docs/PLAN-FORMAT.md), graph-json prints the dependence graph for planGraph').choices(['text', 'json', 'dot', 'svg', 'graph-json']).default('text'))
    .option('--emit-lp <file>', "also write the ILP of every block as one CPLEX LP model (its optimum is the plan's objective when optimal; docs/PLANNING.md)")
    .option('--emit-mps <file>', 'also write the ILP of every block as one free MPS model (as --emit-lp)')
    .addOption(backendOption("plan with this back end's default cost (webgpu weighs kernel launches; docs/PLANNING.md \"Costs per back end\"); nothing runs, no device is needed; default js"))
    .action(async (file: string, flags: PlanFlags & { entry?: string; shape: string[]; static: string[]; format: string; emitLp?: string; emitMps?: string; backend?: BackendName }) => {
      if (flags.emitLp !== undefined && flags.emitLp === flags.emitMps) {
        throw new UsageError(userError('E524', `--emit-lp and --emit-mps name one file, ${JSON.stringify(flags.emitLp)}: the second would overwrite the first`).diagnostics);
      }
      const options = planningOptions(flags, term);
      // The driver returns the graphs each plan was made from; the reports below draw on them.
      let planned: PlannedGraphs;
      let name: string;
      // A program's plan comes with its memory plan (for the entry sizes of --shape, if any); a
      // JSON graph has no arrays to place, so none.
      let memory: MemoryPlan | undefined;
      if (/\.json$/i.test(file)) {
        // A graph has no parameters to give values to: a --static there is a mistake, not a no-op.
        if (flags.static.length > 0) throw new UsageError(userError('E525', `--static ${flags.static[0]!}: a dependence graph (${file}) has no scalar parameters; --static applies to a .fuse program`).diagnostics);
        // Another compiler's dependence graph (docs/PLAN-FORMAT.md), planned without our IR.
        // A back end's default cost is for a program's run; a graph is planned with the planner's default.
        if (flags.backend !== undefined) throw new UsageError(userError('E524', `--backend ${flags.backend}: a dependence graph (${file}) is planned with the cost given by --cost (default ${defaultCostText}); --backend applies to a .fuse program`).diagnostics);
        planned = await planGraphJson(readSource(file), options, file);
        name = file;
      } else {
        // One thread: a back end's default cost does not depend on threads, and `plan` runs nothing.
        const compiler = compilerFor(file, flags.entry, flags.backend === undefined ? undefined : 1, undefined, flags.backend);
        const signature = shapeSignature(compiler, flags.shape, flags.static);
        const program = await compiler.planned(signature, options);
        planned = program;
        name = program.program.name;
        memory = planMemory(program.program, program.plan, signature === undefined ? undefined : entrySizes(signature));
      }
      const { graphs, plan } = planned;
      // The plan's own cost text: the one given, or the back end's default it was planned with.
      if (flags.emitLp !== undefined) writeFile(flags.emitLp, emitLp(graphs, plan.cost));
      if (flags.emitMps !== undefined) writeFile(flags.emitMps, emitMps(graphs, plan.cost));
      // Graphviz lays a picture out in time far worse than linear in its boxes (MG unfused, 711
      // loops: 7 minutes); say so before it starts rather than seem to hang.
      const loops = loopCount(plan.root);
      if (flags.format === 'svg' && loops > manyLoops) term.err(`note: the plan has ${loops} loops; laying its picture out may take minutes (--format dot prints the graph at once)`);
      term.out(await renderPlan(flags.format as PlanFormat, { graphs, plan, memory, name }));
    });

  program
    .command('run')
    .description('run a program on inputs: the fused plan by default, or the reference interpreter')
    .argument('<file>', '.fuse source file')
    .option('--entry <name>', 'the def to run')
    .option('--input <name=path>', 'an input from a .npy or .json file (repeatable)', collect, [])
    .option('--arg <name=value>', 'a scalar input (repeatable); the run is compiled for its value, a compile-time constant (docs/LANGUAGE.md "Static arguments")', collect, [])
    .option('--static <name=value>', 'a scalar input, as --arg, that must name a scalar parameter (repeatable)', collect, [])
    .option('--random <name=spec>', 'a random input, e.g. xs=f64[1000,64] or is=i32[10]@0..9 (repeatable)', collect, [])
    .option('--seed <n>', 'seed for --random', '1')
    .option('--out <dir>', 'write every result to DIR/<name>.npy')
    .addOption(strategyOption())
    .addOption(costOption())
    .addOption(timeLimitOption())
    .addOption(progressOption())
    .addOption(threadsOption())
    .addOption(
      backendOption(
        'the back end that runs the fused code: js (one thread), multicore (--threads), webgpu (WGSL kernels on a WebGPU device; f32, i32, u32 and bool programs; in Node it needs the npm package webgpu and a GPU or a software Vulkan driver, docs/EXECUTION.md "WebGPU"); its default cost plans the run; default: js for one thread, multicore for more',
      ),
    )
    .addOption(fastMathOption())
    .option('--interpret', 'run the reference interpreter instead of the fused code')
    .option(
      '--stats',
      'print the threads and back end, whether fast math is on, time per cluster, the memory plan, the pool kept across runs, bytes allocated this run, element counters and a roofline per cluster (the program runs once counting and twice timed; the machine\'s rates are measured once and cached, see `arrayfuse roofline`)',
    )
    .action(async (file: string, flags: PlanFlags & InputFlags & { entry?: string; out?: string; threads?: number; backend?: BackendName; fastMath?: boolean; interpret?: boolean; stats?: boolean }) => {
      const compiler = compilerFor(file, flags.entry, flags.threads, flags.fastMath === true, flags.backend);
      const planning = planningOptions(flags, term);
      const inputs = gatherInputs(compiler, flags);
      // The output directory exists before the run, so that a bad --out fails before the work.
      if (flags.out !== undefined) ensureDirectory(flags.out);
      // --stats of a fused run: counts from a counting run, times from timed runs of the plain module (the roofline's runs).
      const machine: CachedMachine | null = flags.stats === true && flags.interpret !== true ? cachedMachine() : null;
      const execution = await compiler.execute(inputs, {
        ...planning,
        interpret: flags.interpret === true,
        roofline: machine === null ? undefined : { machine: machine.rates },
      });
      execution.program.results.forEach((r, k) => {
        const value = execution.results[k]!;
        term.out(`${r.name} = ${componentsOf(value).map((c) => formatValue(c)).join(', ')}`);
        if (flags.out !== undefined) {
          const parts = componentsOf(value);
          parts.forEach((c, i) => writeValueFile(join(flags.out!, parts.length === 1 ? `${r.name}.npy` : `${r.name}.${i}.npy`), c));
        }
      });
      if (flags.stats === true && execution.run !== undefined) {
        // The executable that ran is cached by the Compiler: this asks for it again, not for a new compile.
        const exe = await compiler.executable(signatureOf(compiler.entry, inputs, compiler.file), planning);
        term.out(renderStats(compiler.backend, flags.fastMath === true, execution.run.stats, exe.memory, execution.roofline ?? null, exe));
        if (execution.roofline !== undefined && machine !== null) term.out(renderRoofline(execution.roofline, machineSource(machine)));
      }
      if (flags.stats === true && execution.fallback !== undefined) term.out(renderFallback(execution.fallback));
    });

  program
    .command('emit')
    .description('print the JavaScript generated for a program\'s fused plan')
    .argument('<file>', '.fuse source file')
    .option('--entry <name>', 'the def to compile')
    .option('--shape <name=type[dims]>', 'specialise to input shapes (repeatable)', collect, [])
    .addOption(staticOption())
    .addOption(strategyOption())
    .addOption(costOption())
    .addOption(timeLimitOption())
    .addOption(progressOption())
    .addOption(fastMathOption())
    .action(async (file: string, flags: PlanFlags & { entry?: string; shape: string[]; static: string[]; fastMath?: boolean }) => {
      const compiler = compilerFor(file, flags.entry);
      const signature = shapeSignature(compiler, flags.shape, flags.static);
      const plan = await compiler.plan(signature, planningOptions(flags, term));
      const program = compiler.lower(signature);
      // The memory plan a run with these shapes uses (as `plan` shows it), so the code printed is the code run.
      term.out(emitJs(program, plan, planMemory(program, plan, signature === undefined ? undefined : entrySizes(signature)), flags.fastMath === true));
    });

  program
    .command('roofline')
    .description("show this machine's rates that `run --stats` compares every cluster with: a STREAM triad's bandwidth and a JavaScript multiply-add rate, measured once and cached")
    .option('--remeasure', 'measure again and replace the cached rates')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((flags: { remeasure?: boolean; format: 'text' | 'json' }) => {
      const machine = cachedMachine({ remeasure: flags.remeasure === true });
      if (flags.format === 'json') term.out(JSON.stringify({ ...machine.rates, source: machine.source, path: machine.path }, null, 2));
      else term.out(`roofline: ${machineLine(machine.rates)} (${machine.rates.triadElements} f64 elements per triad array, best of ${machine.rates.repetitions}; ${machineSource(machine)})`);
    });

  program
    .command('demo')
    .description('run the bundled paper examples on generated inputs and show their plans')
    .option('--size <n>', 'elements per input array', '8')
    .addOption(threadsOption())
    .action(async (flags: { size: string; threads?: number }) => {
      const size = Number(flags.size);
      if (flags.size.trim() === '' || !Number.isSafeInteger(size) || size < 1) {
        throw new UsageError(userError('E524', `--size ${JSON.stringify(flags.size)}: expected a positive integer`).diagnostics);
      }
      await runDemo(term, size, flags.threads);
    });

  return program;
}

function describeInterface(i: { readonly components: readonly { readonly kind: string; readonly elem: string; readonly rank?: number }[] }): string {
  const parts = i.components.map((c) => (c.kind === 'scalar' ? c.elem : `${c.elem}[${'_,'.repeat(Math.max(0, (c.rank ?? 1) - 1))}_]`.replace('[]', '[]')));
  return parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`;
}

/** For --stats: the fused run failed in elements nobody observes, so the interpreter's results stand. */
function renderFallback(compiledError: UserError): string {
  const first = compiledError.diagnostics[0]!;
  const position = diagnosticPosition(first);
  const where = position === '' ? '' : ` at ${first.file!.name}:${position}`;
  return `stats: the fused run stopped at a fault (${first.code}${where}) in an element no result depends on; these are the reference interpreter's results`;
}

/**
 * `--stats`: the threads and back end, fast math, per cluster time, the memory plan the executable
 * allocates from (its peak is `RunStats.peakBytes`), the pool it keeps across runs, this run's
 * allocations, counters (the roofline's counting run's, when it ran).
 */
function renderStats(backend: BackendChoice, fastMath: boolean, stats: RunStats, memory: MemoryPlan, roofline: Roofline | null, exe: Executable): string {
  const lines = ['stats:', `  threads: ${backend.threads} (${backend.name})`, `  fast math: ${fastMath ? 'on (float + and * folds may be regrouped)' : 'off (float results exact)'}`];
  if (isWebgpuExecutable(exe)) {
    // Cluster times below are the host's time to record each cluster's work, not the device's.
    const host = exe.kernels.filter((k) => !k.device);
    lines.push(`  device: ${exe.adapter}; ${exe.kernels.length - host.length} of ${exe.kernels.length} kernel(s) on the device, ${exe.submissions} submission(s) so far`);
    for (const k of host) lines.push(`    ${k.name} runs on the host: ${k.reason ?? ''}`);
  }
  stats.clusters.forEach((c, k) => {
    lines.push(`  cluster ${k + 1}: ${c.timeMs.toFixed(3)} ms over ${c.runs} run(s); writes ${c.manifest.join(', ') || 'nothing'}`);
  });
  const dynamic = memory.dynamicSlots === 0 ? '' : ` (${memory.dynamicSlots} sized at run time)`;
  lines.push(`  memory plan: peak ${memory.peakBytes} bytes in ${memory.slots.length} slot(s)${dynamic}`);
  lines.push(`  pool: ${stats.poolBytes} bytes held across runs`);
  const arrays = stats.allocations.reduce((n, a) => n + a.count, 0);
  const names = stats.allocations.map((a) => (a.count === 1 ? a.array : `${a.array} ×${a.count}`));
  lines.push(`  allocated ${stats.bytesAllocated} bytes this run in ${arrays} array(s)${names.length === 0 ? '' : `: ${names.join(', ')}`}`);
  const counters = roofline?.counted.counters ?? stats.counters;
  if (counters !== null) {
    lines.push('  elements moved (reads by order; writes):');
    for (const [name, t] of Object.entries(counters)) {
      const reads = Object.entries(t.reads).map(([order, n]) => `${order}:${n}`).join(' ');
      lines.push(`    ${name}: reads ${reads || '-'}; writes ${t.writes}`);
    }
  }
  return lines.join('\n');
}

/** Runs the CLI; returns the exit code. Never throws. */
export async function main(argv: readonly string[], term: Terminal = processTerminal): Promise<number> {
  const program = buildProgram(term);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help, help and --version exit 0; no command at all shows the help on stderr with
      // exitCode 1, which is a usage error like an unknown flag.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof UsageError) {
      term.err(e.diagnostics.map(renderDiagnostic).join('\n'));
      return 2;
    }
    if (e instanceof InvalidOptionError) {
      // A bad ARRAYFUSE_THREADS: a usage error, said as commander says a bad flag value.
      term.err(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof UserError) {
      term.err(e.diagnostics.map(renderDiagnostic).join('\n'));
      return 1;
    }
    const detail = e instanceof CompilerBug ? bugReport(e) : `internal error (this is a bug in arrayfuse; please report it): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
    term.err(detail);
    return 3;
  }
}
