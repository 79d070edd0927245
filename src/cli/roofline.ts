// The command line's side of the roofline (docs/EXECUTION.md, "Roofline per cluster"): this
// machine's rates measured once and cached in a file, and the table `run --stats` prints.
//
// The measurement itself is the core's (runtime/roofline.ts `measureMachine`, no Node module);
// the cache is a file, so it is here. It lives at $XDG_CACHE_HOME/arrayfuse/roofline.json, else
// ~/.cache/arrayfuse/roofline.json, and holds one entry per machine key (CPU model, cores,
// architecture, Node version): a home directory shared by machines, or a Node upgrade, measures
// again. A cache that cannot be read or parsed is measured over; one that cannot be written
// leaves the rates measured for this run only, said in the table's heading.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { measureMachine, type MachineRates, type Roofline, type RooflineRow } from '../runtime/index.js';

/** The rates `run --stats` compares with, and where they came from. */
export interface CachedMachine {
  readonly rates: MachineRates;
  /** `cached`: read from `path`; `measured`: measured now (and written to `path`, unless `unwritable` says why not). */
  readonly source: 'cached' | 'measured';
  readonly path: string;
  readonly unwritable?: string;
}

/** Where the cache file lives for this environment. */
export function rooflineCachePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env['XDG_CACHE_HOME'] !== undefined && env['XDG_CACHE_HOME'] !== '' ? env['XDG_CACHE_HOME'] : join(homedir(), '.cache');
  return join(base, 'arrayfuse', 'roofline.json');
}

/** The key of this machine's entry: what changes the rates (another CPU, core count, architecture or Node). */
export function machineKey(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${model} | ${availableParallelism()} cores | ${arch()} | node ${process.version}`;
}

interface CacheFile {
  readonly version: 1;
  readonly machines: Record<string, MachineRates>;
}

/** The cache's entries, or none when the file is missing, unreadable or not ours. */
function readCache(path: string): Record<string, MachineRates> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CacheFile> | null;
    if (parsed === null || typeof parsed !== 'object' || parsed.version !== 1 || typeof parsed.machines !== 'object' || parsed.machines === null) return {};
    return Object.assign(Object.create(null) as Record<string, MachineRates>, parsed.machines);
  } catch {
    return {};
  }
}

function validRates(r: unknown): r is MachineRates {
  if (typeof r !== 'object' || r === null) return false;
  const m = r as Record<string, unknown>;
  return [m['bandwidth'], m['peakFlops'], m['triadElements'], m['repetitions']].every((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);
}

/**
 * This machine's rates: the cached entry for `key`, else measured now and cached (the file
 * written whole to a temporary name, then renamed over the old one, so a concurrent reader
 * never sees half of it). `remeasure` measures even when an entry exists.
 */
export function cachedMachine(
  options: { readonly path?: string; readonly key?: string; readonly remeasure?: boolean; readonly measure?: () => MachineRates } = {},
): CachedMachine {
  const path = options.path ?? rooflineCachePath();
  const key = options.key ?? machineKey();
  const machines = readCache(path);
  const have = machines[key];
  if (options.remeasure !== true && validRates(have)) return { rates: have, source: 'cached', path };
  const rates = (options.measure ?? measureMachine)();
  const file: CacheFile = { version: 1, machines: { ...machines, [key]: rates } };
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(file, null, 2) + '\n');
    renameSync(temporary, path);
    return { rates, source: 'measured', path };
  } catch (e) {
    return { rates, source: 'measured', path, unwritable: e instanceof Error ? e.message : String(e) };
  }
}

/** The machine's rates in a line: `triad 11.2 GB/s, multiply-add 2.95 GFLOP/s`. */
export function machineLine(rates: MachineRates): string {
  return `triad ${fixed(rates.bandwidth / 1e9)} GB/s, multiply-add ${fixed(rates.peakFlops / 1e9)} GFLOP/s`;
}

/** Where the rates came from, for the table's heading. */
export function machineSource(m: CachedMachine): string {
  if (m.source === 'cached') return `cached in ${m.path}`;
  return m.unwritable === undefined ? `measured now, cached in ${m.path}` : `measured now, not cached (${m.unwritable})`;
}

const columns = ['cluster', 'runs', 'elements', 'ld/st B', 'memory B', 'flops', 'int ops', 'ms', 'GB/s', 'GFLOP/s', 'flop/B', 'bw', 'peak', 'verdict'] as const;

/** `run --stats`'s roofline table: one row per cluster and a total, columns aligned. */
export function renderRoofline(roofline: Roofline, source: string): string {
  const rows: string[][] = roofline.clusters.map((c) => [String(c.cluster + 1), ...cells(c)]);
  rows.push(['total', ...cells(roofline.total)]);
  const header = [...columns];
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)));
  // Text columns (the first and the verdict) align left, numbers right.
  const line = (cellsOfRow: readonly string[]): string =>
    '    ' + cellsOfRow.map((cell, k) => (k === 0 || k === header.length - 1 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ').trimEnd();
  const runs = roofline.timedRuns === 1 ? 'one timed run' : `the fastest of ${roofline.timedRuns} timed runs`;
  return [
    `  roofline (${machineLine(roofline.machine)}; ${source}):`,
    `    counts from a counting run, times ${runs} of the plain module; ld/st B: bytes loaded and stored; memory B: at most once per array element and call;`,
    '    GB/s, flop/B and bw (the fraction of the triad) of memory B; peak: the fraction of the multiply-add rate',
    line(header),
    ...rows.map(line),
  ].join('\n');
}

function cells(r: RooflineRow): string[] {
  return [
    String(r.runs),
    count(r.elements),
    count(r.bytes),
    count(r.memoryBytes),
    count(r.flops),
    count(r.intOps),
    r.timeMs.toFixed(2),
    fixed(r.gbPerSecond),
    fixed(r.gflopPerSecond),
    r.intensity === Infinity ? 'inf' : r.intensity.toFixed(2),
    percent(r.bandwidthFraction),
    percent(r.peakFraction),
    r.verdict,
  ];
}

/** A count in three significant digits with an SI prefix: 999, 1.00k, 12.3M, 4.56G. */
export function count(n: number): string {
  if (n < 1000) return String(n);
  const units = ['k', 'M', 'G', 'T', 'P'];
  let value = n;
  let unit = -1;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toPrecision(3)}${units[unit]!}`;
}

/** A rate: two decimals below 100, none above. */
function fixed(x: number): string {
  return x >= 100 ? x.toFixed(0) : x.toFixed(2);
}

function percent(f: number): string {
  return `${Math.round(f * 100)}%`;
}
