// The native references of `npm run bench:compute`, run as child processes: NPB-CPP's serial MG
// (`mg.W`) and LLNL's serial LULESH 2.0 (`lulesh2.0 -s N`), built from their public sources by
// build-references.sh. Each run is verified from what the binary prints (NPB's own verification
// AND its L2 norm against MG_CLASSES' value; LULESH's cycle count and final origin energy against
// LULESH_RESULTS), and timed twice: the binary's own timed section (NPB's T_BENCH, LULESH's main
// loop), which is what the comparison uses, since arrayfuse's runs start from inputs already
// built, and the process's wall time (start, set-up, exit included), shown beside it.
// The parsers and checks are pure (tested on captured output, test/bench/compute.test.ts).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LULESH_RESULTS } from '../programs/lulesh-reference.js';
import { MG_CLASSES, MG_EPSILON, relativeError, type MgClass } from '../programs/mg-reference.js';

export type MgClassName = keyof typeof MG_CLASSES;
export const mgClassNames: readonly MgClassName[] = ['S', 'W', 'A'];

/** What NPB-CPP's MG prints that the harness reads. */
export interface NpbReport {
  readonly cls: string;
  readonly n: number;
  readonly iterations: number;
  /** NPB's own verdict (`VERIFICATION SUCCESSFUL`). */
  readonly successful: boolean;
  readonly l2Norm: number;
  /** `Time in seconds` (two decimals) and `Mop/s total` (two decimals, so the finer clock). */
  readonly seconds: number;
  readonly mops: number;
}

const number = String.raw`([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)`;

function field(text: string, pattern: RegExp): string | null {
  const m = pattern.exec(text);
  return m === null ? null : m[1]!;
}

/** NPB MG's report, or what is missing from the output. */
export function parseNpbOutput(text: string): NpbReport | string {
  const cls = field(text, /class_npb\s*=\s*(\S+)/);
  const size = field(text, /Size\s*=\s*(\d+)x/);
  const iterations = field(text, /Iterations\s*=\s*(\d+)/);
  const l2 = field(text, new RegExp(String.raw`L2 Norm is\s+${number}`));
  const seconds = field(text, new RegExp(String.raw`Time in seconds\s*=\s*${number}`));
  const mops = field(text, new RegExp(String.raw`Mop/s total\s*=\s*${number}`));
  const missing = Object.entries({ class_npb: cls, Size: size, Iterations: iterations, 'L2 Norm': l2, 'Time in seconds': seconds, 'Mop/s total': mops })
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  if (missing.length > 0) return `NPB's output has no ${missing.join(', ')}`;
  return {
    cls: cls!,
    n: Number(size),
    iterations: Number(iterations),
    successful: /VERIFICATION SUCCESSFUL/.test(text) && !/VERIFICATION FAILED/.test(text),
    l2Norm: Number(l2),
    seconds: Number(seconds),
    mops: Number(mops),
  };
}

/**
 * NPB's timed section in ms. NPB prints it with two decimals (70 ms as `0.07`); its Mop/s is
 * 58·nit·n³·10⁻⁶ / t printed with two decimals, so t recovered from it is exact to ~10⁻⁶.
 */
export function npbKernelMs(r: NpbReport): number {
  return r.mops > 0 ? ((58 * r.iterations * r.n ** 3 * 1e-6) / r.mops) * 1000 : r.seconds * 1000;
}

/** Null when NPB ran `cls`, said so, and its norm is the class's value within NPB's epsilon. */
export function verifyNpb(r: NpbReport, cls: MgClass): string | null {
  if (r.cls !== cls.name || r.n !== cls.n || r.iterations !== cls.nit) return `NPB ran class ${r.cls} (${r.n}³, ${r.iterations} iterations), expected class ${cls.name} (${cls.n}³, ${cls.nit})`;
  if (!r.successful) return `NPB says its verification failed (L2 norm ${r.l2Norm})`;
  const error = relativeError(r.l2Norm, cls.verifyValue);
  if (!(error <= MG_EPSILON)) return `L2 norm ${r.l2Norm}, expected ${cls.verifyValue} (relative error ${error.toExponential(2)})`;
  return null;
}

/** What LLNL's LULESH prints that the harness reads. */
export interface LuleshReport {
  readonly size: number;
  readonly iterations: number;
  readonly originEnergy: number;
  /** The main loop's time: `overall` (6 significant digits), else `Elapsed time` (2 decimals). */
  readonly elapsedS: number;
  /** Its own symmetry test of the energy's plane 0. */
  readonly maxRelDiff: number | null;
}

export function parseLuleshOutput(text: string): LuleshReport | string {
  const size = field(text, /Problem size\s*=\s*(\d+)/);
  const iterations = field(text, /Iteration count\s*=\s*(\d+)/);
  const energy = field(text, new RegExp(String.raw`Final Origin Energy\s*=\s*${number}`));
  const overall = field(text, new RegExp(String.raw`\(\s*${number}\s+overall\)`));
  const elapsed = overall ?? field(text, new RegExp(String.raw`Elapsed time\s*=\s*${number}`));
  const relDiff = field(text, new RegExp(String.raw`MaxRelDiff\s*=\s*${number}`));
  const missing = Object.entries({ 'Problem size': size, 'Iteration count': iterations, 'Final Origin Energy': energy, 'Elapsed time': elapsed })
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  if (missing.length > 0) return `LULESH's output has no ${missing.join(', ')}`;
  return { size: Number(size), iterations: Number(iterations), originEnergy: Number(energy), elapsedS: Number(elapsed), maxRelDiff: relDiff === null ? null : Number(relDiff) };
}

/** LULESH prints e(0) with 7 significant digits: agreement within 5·10⁻⁷ relative. */
export const LULESH_ENERGY_TOLERANCE = 5e-7;

/** Null when LULESH ran `-s nx` for LLNL's published cycle count and final origin energy. */
export function verifyLulesh(r: LuleshReport, nx: number): string | null {
  const published = LULESH_RESULTS[nx];
  if (published === undefined) return `no published LULESH result for -s ${nx} (LULESH_RESULTS has ${Object.keys(LULESH_RESULTS).join(', ')})`;
  if (r.size !== nx) return `LULESH ran -s ${r.size}, expected -s ${nx}`;
  if (r.iterations !== published.iterations) return `LULESH ran ${r.iterations} cycles, LLNL's reference ${published.iterations}`;
  const error = relativeError(r.originEnergy, published.originEnergy);
  if (!(error <= LULESH_ENERGY_TOLERANCE)) return `final origin energy ${r.originEnergy}, LLNL's reference ${published.originEnergy}`;
  return null;
}

/**
 * The NPB binary for a class: `path` itself when it is a file, else `path/mg.<class>` or
 * `path/bin/mg.<class>` (a build-references.sh output or an NPB-SER tree); null when none exists.
 */
export function resolveNpbBinary(path: string, cls: MgClassName): string | null {
  if (!existsSync(path)) return null;
  if (!statSync(path).isDirectory()) return path;
  return [join(path, `mg.${cls}`), join(path, 'bin', `mg.${cls}`)].find((p) => existsSync(p) && statSync(p).isFile()) ?? null;
}

/** One run of a native binary: its output and the process's wall time. */
export interface NativeRun {
  readonly stdout: string;
  readonly wallMs: number;
}

/**
 * Runs `binary args` to completion in a fresh empty directory (NPB reads `mg.input` from its
 * working directory when present) with one OpenMP thread, in case a binary was built with it.
 */
export function runNative(binary: string, args: readonly string[]): NativeRun {
  const cwd = mkdtempSync(join(tmpdir(), 'arrayfuse-native-'));
  try {
    const t0 = performance.now();
    const child = spawnSync(binary, args, { cwd, encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' }, maxBuffer: 16 * 2 ** 20 });
    const wallMs = performance.now() - t0;
    if (child.error !== undefined) throw new Error(`${binary}: ${child.error.message}`);
    if (child.status !== 0) throw new Error(`${binary} ${args.join(' ')} exited with ${child.status ?? child.signal}: ${(child.stderr || child.stdout).trim().split('\n').slice(-3).join(' / ')}`);
    return { stdout: child.stdout, wallMs };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
