// The command line of `npm run bench:compute` (run.ts), parsed without side effects so that the
// tests can check it: the parts, the sizes, where the native references and python are, the
// baseline build, the repetitions. A bad value is a usage error (commander's), thrown here.

import { Command, CommanderError, Option } from 'commander';
import { listOf, positiveInt } from '../cli.js';
import { mgClassNames, type MgClassName } from './native.js';
import { partNames, sizePresets, type Part, type Sizes } from './programs.js';

export interface ComputeOptions {
  readonly parts: readonly Part[];
  readonly sizes: Sizes;
  readonly repetitions: number;
  readonly npb: string | null;
  readonly lulesh: string | null;
  readonly python: string;
  readonly baseline: string | null;
  /** Example names to run (null: every shared example). */
  readonly examples: readonly string[] | null;
  readonly clusterStats: boolean;
  readonly clusterTop: number;
  readonly out: string;
}

interface Raw {
  parts: Part[];
  size: 'quick' | 'full';
  mgClass?: MgClassName;
  luleshSize?: number;
  examplesN?: number;
  repetitions: number;
  npb?: string;
  lulesh?: string;
  python: string;
  baseline?: string;
  examples?: string;
  clusterStats: boolean;
  clusterTop: number;
  out: string;
}

export function computeCommand(): Command {
  return new Command('bench:compute')
    .option('--parts <names>', `comma-separated parts: ${partNames.join(', ')}`, listOf(partNames), [...partNames])
    .addOption(new Option('--size <preset>', 'full: MG class W, attention n=1024 d=64 br=bc=64, LULESH -s 10, examples n=4e6; quick: a smoke run').choices(['quick', 'full']).default('full'))
    .addOption(new Option('--mg-class <class>', 'NAS MG class (overrides --size)').choices([...mgClassNames]))
    .option('--lulesh-size <nx>', 'LULESH -s (overrides --size; LLNL results are known for 5 and 10)', positiveInt)
    .option('--examples-n <elements>', 'elements of each example (overrides --size)', positiveInt)
    .option('--repetitions <k>', 'timed calls per contender, interleaved', positiveInt, 7)
    .option('--npb <path>', 'NPB-CPP serial MG: the mg.<class> binary, or a directory holding it (skipped with a notice when absent)')
    .option('--lulesh <binary>', 'LLNL LULESH 2.0 serial binary (skipped with a notice when absent)')
    .option('--python <path>', 'python with NumPy for the attention peer (skipped with a notice when absent)', 'python3')
    .option('--baseline <dir>', 'an earlier arrayfuse checkout, built (dist/), run beside this one in every part')
    .option('--examples <names>', 'comma-separated example names (default: every shared example)')
    .option('--cluster-stats', "after the timed runs, time every cluster of arrayfuse's run once and print the heaviest", false)
    .option('--cluster-top <k>', 'clusters listed per program with --cluster-stats', positiveInt, 8)
    .option('--out <dir>', 'results directory', 'bench/results/compute');
}

/** Options from the arguments after `--` (no program name); throws CommanderError on bad ones (and after printing --help). */
export function parseComputeArgs(args: readonly string[]): ComputeOptions {
  const cli = computeCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  cli.parse([...args], { from: 'user' });
  const o = cli.opts<Raw>();
  if (cli.args.length > 0) throw new CommanderError(1, 'bench.compute.excessArguments', `unexpected arguments: ${cli.args.join(' ')}`);
  const preset = sizePresets[o.size];
  return {
    parts: o.parts,
    sizes: {
      mgClass: o.mgClass ?? preset.mgClass,
      attention: preset.attention,
      luleshSize: o.luleshSize ?? preset.luleshSize,
      examplesN: o.examplesN ?? preset.examplesN,
    },
    repetitions: o.repetitions,
    npb: o.npb ?? null,
    lulesh: o.lulesh ?? null,
    python: o.python,
    baseline: o.baseline ?? null,
    examples: o.examples === undefined ? null : o.examples.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    clusterStats: o.clusterStats,
    clusterTop: o.clusterTop,
    out: o.out,
  };
}
