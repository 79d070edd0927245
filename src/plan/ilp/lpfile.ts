// CPLEX LP and free MPS text of one or more IlpModels, for `--emit-lp` / `--emit-mps` and for
// handing the fusion ILP to another solver (HiGHS, CBC, GLPK, Gurobi) unchanged.
//
// Several models go into one file as independent blocks: every column and row name gets its
// block's prefix (`b0_pi_3`), so names stay unique, and the objective is the sum of the blocks'
// objectives. Blocks sharing no variable, the optimum of the file is the sum of the blocks'
// optima (export.ts writes a program's every block this way).
//
// The objective's constant is the cost of a column `objconst` fixed at 1, in both formats:
// CBC's LP reader rejects a bare constant, and an MPS right-hand side on the objective row is
// read as −constant by CBC and HiGHS but as +constant by GLPK, so a fixed column is the one
// spelling every reader takes the same way.
//
// Comments (LP `\`, MPS `*`) carry a legend of the columns; any text in them is made safe for
// line-based readers (control, format and line-separator characters escaped), so array names
// with quotes, `<` or unicode cannot break a file. Names themselves are the model's, built from
// numbers (node ids, group indices) and fixed words: valid in every format.

import type { IlpModel } from './model.js';

/** One model of a multi-block file. */
export interface ModelBlock {
  /** Prepended to every column and row name of this block (`b0_`); '' for a file of one model. */
  readonly prefix: string;
  /** What the block is, one line (a comment); '' for none. */
  readonly title: string;
  readonly model: IlpModel;
  /** What each column stands for, by column index (comments); empty for no column comments. */
  readonly legend: readonly string[];
  /** More comment lines about the block (its gathers' order labels). */
  readonly notes: readonly string[];
}

/** What a file says before its model, as comment lines. */
export interface FileHeader {
  /** One word: the MPS NAME (sanitised to letters, digits and `_`). */
  readonly name: string;
  readonly comments: readonly string[];
}

/** The column that carries the objective's constant (fixed at 1). */
export const OBJECTIVE_CONSTANT_COLUMN = 'objconst';

interface FlatColumn {
  readonly name: string;
  readonly lower: number;
  readonly upper: number;
  readonly integer: boolean;
  readonly cost: number;
}

/** A one-sided row, as both formats state rows (a ranged model row becomes two). */
interface Constraint {
  readonly name: string;
  readonly sense: 'E' | 'G' | 'L';
  readonly rhs: number;
  readonly cols: readonly number[];
  readonly coefs: readonly number[];
}

/** Every block's columns and rows in one numbering, names prefixed and unique, the constant column first. */
interface FlatModel {
  readonly columns: readonly FlatColumn[];
  readonly constraints: readonly Constraint[];
  readonly comments: readonly string[];
}

/** Exact decimal text of a finite number (the shortest that reads back to the same double). */
function num(v: number): string {
  if (!Number.isFinite(v)) throw new RangeError(`LP/MPS text: the number ${v} is not finite`);
  return String(v === 0 ? 0 : v);
}

/**
 * The longest comment text, in UTF-8 bytes. CBC 2.10 fails on longer lines: an MPS line of
 * 900 bytes, an LP line of 3,000 (measured); the model's own lines stay far below.
 */
export const MAX_COMMENT_BYTES = 400;

const utf8 = new TextEncoder();

/**
 * Comment text safe for line-based readers: control characters, format characters (bidi
 * overrides, zero-width), line and paragraph separators and lone surrogates become `\u{…}`,
 * and text past MAX_COMMENT_BYTES is cut (at a character) and ends in `…`.
 */
export function commentSafe(text: string): string {
  const escaped = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
  if (utf8.encode(escaped).length <= MAX_COMMENT_BYTES) return escaped;
  let kept = '';
  let bytes = 0;
  for (const c of escaped) {
    const size = utf8.encode(c).length;
    if (bytes + size > MAX_COMMENT_BYTES - 3) break; // room for `…` (3 bytes)
    kept += c;
    bytes += size;
  }
  return `${kept}…`;
}

/** A name used once in the file: a repeat gets `__2`, `__3`, … (model names never contain `__`). */
function uniqueNamer(): (name: string) => string {
  const used = new Set<string>();
  return (name) => {
    let unique = name;
    for (let k = 2; used.has(unique); k++) unique = `${name}__${k}`;
    used.add(unique);
    return unique;
  };
}

/**
 * A row's terms with one coefficient per column, in order of first appearance: readers differ
 * on a column named twice in one row (GLPK rejects it, others add), so it is never written.
 */
function mergedTerms(cols: readonly number[], coefs: readonly number[]): { cols: number[]; coefs: number[] } {
  const at = new Map<number, number>();
  const out = { cols: [] as number[], coefs: [] as number[] };
  cols.forEach((c, i) => {
    const k = at.get(c);
    if (k === undefined) {
      at.set(c, out.cols.length);
      out.cols.push(c);
      out.coefs.push(coefs[i]!);
    } else {
      out.coefs[k] = out.coefs[k]! + coefs[i]!;
    }
  });
  return out;
}

function flatten(blocks: readonly ModelBlock[]): FlatModel {
  const unique = uniqueNamer();
  const columns: FlatColumn[] = [];
  const constraints: Constraint[] = [];
  const comments: string[] = [];
  let constant = 0;
  const constantName = unique(OBJECTIVE_CONSTANT_COLUMN);
  for (const block of blocks) {
    const { model, prefix } = block;
    const base = columns.length + 1; // the constant column is column 0
    constant += model.offset;
    const names = model.columns.map((c) => unique(prefix + c.name));
    model.columns.forEach((c, i) => columns.push({ ...c, name: names[i]! }));
    if (block.title !== '') comments.push(block.title);
    for (const note of block.notes) comments.push(`  ${note}`);
    block.legend.forEach((text, i) => comments.push(`  ${names[i]}: ${text}`));
    for (const row of model.rows) {
      const { cols, coefs } = mergedTerms(row.cols.map((c) => base + c), row.coefs);
      const name = prefix + row.name;
      if (row.lower === row.upper) {
        constraints.push({ name: unique(name), sense: 'E', rhs: row.lower, cols, coefs });
        continue;
      }
      // A row free on both sides constrains nothing; it is left out.
      const ranged = row.lower > -Infinity && row.upper < Infinity;
      if (row.lower > -Infinity) constraints.push({ name: unique(ranged ? `${name}_lo` : name), sense: 'G', rhs: row.lower, cols, coefs });
      if (row.upper < Infinity) constraints.push({ name: unique(ranged ? `${name}_hi` : name), sense: 'L', rhs: row.upper, cols, coefs });
    }
  }
  comments.push(`${constantName}: fixed at 1; its cost is the objective's constant`);
  // GLPK's LP reader rejects an empty Subject To section (a program with no combinator): the
  // constant column's bound, stated once more as a row, keeps every file non-empty.
  if (constraints.length === 0) constraints.push({ name: unique(`${OBJECTIVE_CONSTANT_COLUMN}_fixed`), sense: 'E', rhs: 1, cols: [0], coefs: [1] });
  return { columns: [{ name: constantName, lower: 1, upper: 1, integer: false, cost: constant }, ...columns], constraints, comments };
}

/**
 * The LP objective: every column with a cost, the constant column (whatever its cost), and
 * with cost 0 every column in no row, since some readers reject a column seen only in Bounds.
 */
function objectiveLines(flat: FlatModel): string[] {
  const inRows = new Set(flat.constraints.flatMap((r) => r.cols));
  const cols = flat.columns.map((_, i) => i).filter((i) => i === 0 || flat.columns[i]!.cost !== 0 || !inRows.has(i));
  const terms = cols.map((c) => {
    const a = flat.columns[c]!.cost;
    return `${a < 0 ? '-' : '+'} ${Math.abs(a) === 1 ? '' : `${num(Math.abs(a))} `}${flat.columns[c]!.name}`;
  });
  return termLines(terms);
}

/** `a x + b y …` as LP terms, a few to a line (readers take expressions across lines). */
function lpTerms(columns: readonly FlatColumn[], cols: readonly number[], coefs: readonly number[]): string[] {
  const terms = cols.flatMap((c, i) => {
    const a = coefs[i]!;
    if (a === 0) return [];
    return [`${a < 0 ? '-' : '+'} ${Math.abs(a) === 1 ? '' : `${num(Math.abs(a))} `}${columns[c]!.name}`];
  });
  if (terms.length === 0) return [`0 ${columns[0]!.name}`];
  return termLines(terms);
}

/** Terms a few to a line, the first without its `+`. */
function termLines(terms: readonly string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < terms.length; i += 8) lines.push(terms.slice(i, i + 8).join(' '));
  lines[0] = lines[0]!.replace(/^\+ /, '');
  return lines;
}

function headerComments(header: FileHeader, flat: FlatModel): string[] {
  return [...header.comments, ...flat.comments].map(commentSafe);
}

/** CPLEX LP text of several blocks in one model (see the file's header). */
export function blocksToLpText(blocks: readonly ModelBlock[], header: FileHeader): string {
  const flat = flatten(blocks);
  const { columns } = flat;
  const lines = headerComments(header, flat).map((c) => `\\ ${c}`);
  const objective = objectiveLines(flat);
  lines.push('Minimize', ` obj: ${objective[0]}`, ...objective.slice(1).map((l) => `   ${l}`), 'Subject To');
  const sense = { E: '=', G: '>=', L: '<=' } as const;
  for (const row of flat.constraints) {
    const [head, ...tail] = lpTerms(columns, row.cols, row.coefs);
    if (tail.length === 0) lines.push(` ${row.name}: ${head} ${sense[row.sense]} ${num(row.rhs)}`);
    else lines.push(` ${row.name}: ${head}`, ...tail.slice(0, -1).map((l) => `   ${l}`), `   ${tail[tail.length - 1]} ${sense[row.sense]} ${num(row.rhs)}`);
  }
  lines.push('Bounds');
  for (const c of columns) {
    if (c.lower === c.upper) lines.push(` ${c.name} = ${num(c.lower)}`);
    else if (c.lower === -Infinity && c.upper === Infinity) lines.push(` ${c.name} free`);
    else if (c.upper === Infinity) lines.push(` ${c.name} >= ${num(c.lower)}`);
    else lines.push(` ${c.lower === -Infinity ? '-inf' : num(c.lower)} <= ${c.name} <= ${num(c.upper)}`);
  }
  const ints = columns.filter((c) => c.integer).map((c) => c.name);
  if (ints.length > 0) lines.push('General');
  for (let i = 0; i < ints.length; i += 10) lines.push(` ${ints.slice(i, i + 10).join(' ')}`);
  lines.push('End', '');
  return lines.join('\n');
}

/** Letters, digits and `_` only: the NAME of an MPS file is one field. */
function mpsName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_]/g, '_');
  return safe === '' ? 'arrayfuse' : safe;
}

/**
 * Free MPS text of several blocks in one model. Integer columns are bracketed by MARKER lines;
 * every bound is explicit (readers differ on the default bounds of integer columns). The NAME
 * line ends in FREE because CBC 2.10 otherwise reads the file as fixed MPS and misreads BOUNDS.
 */
export function blocksToMpsText(blocks: readonly ModelBlock[], header: FileHeader): string {
  const flat = flatten(blocks);
  const { columns, constraints } = flat;
  const lines = [`NAME ${mpsName(header.name)} FREE`, ...headerComments(header, flat).map((c) => `* ${c}`), 'ROWS', ' N obj'];
  for (const row of constraints) lines.push(` ${row.sense} ${row.name}`);
  // Column-major entries: the objective first, then the rows in order.
  const entries: { row: string; value: number }[][] = columns.map((c) => (c.cost !== 0 ? [{ row: 'obj', value: c.cost }] : []));
  for (const row of constraints) row.cols.forEach((c, i) => entries[c]!.push({ row: row.name, value: row.coefs[i]! }));
  lines.push('COLUMNS');
  let inInt = false;
  let marker = 0;
  columns.forEach((c, i) => {
    if (c.integer !== inInt) {
      lines.push(` MARKER${marker++} 'MARKER' '${c.integer ? 'INTORG' : 'INTEND'}'`);
      inInt = c.integer;
    }
    // A column in nothing is still declared (with a zero cost), so that its bounds refer to it.
    if (entries[i]!.length === 0) lines.push(` ${c.name} obj 0`);
    for (const e of entries[i]!) lines.push(` ${c.name} ${e.row} ${num(e.value)}`);
  });
  if (inInt) lines.push(` MARKER${marker++} 'MARKER' 'INTEND'`);
  // No RHS on the objective row: the constant is objconst's cost (see the file's header).
  lines.push('RHS');
  for (const row of constraints) if (row.rhs !== 0) lines.push(` RHS ${row.name} ${num(row.rhs)}`);
  lines.push('BOUNDS');
  for (const c of columns) {
    if (c.lower === c.upper) {
      lines.push(` FX BND ${c.name} ${num(c.lower)}`);
      continue;
    }
    if (c.lower === -Infinity && c.upper === Infinity) {
      lines.push(` FR BND ${c.name}`);
      continue;
    }
    lines.push(c.lower === -Infinity ? ` MI BND ${c.name}` : ` LO BND ${c.name} ${num(c.lower)}`);
    lines.push(c.upper === Infinity ? ` PL BND ${c.name}` : ` UP BND ${c.name} ${num(c.upper)}`);
  }
  lines.push('ENDATA', '');
  return lines.join('\n');
}

/** A lone model as a one-block file: the model's own names, no legend. */
function loneBlock(model: IlpModel): ModelBlock[] {
  return [{ prefix: '', title: '', model, legend: [], notes: [] }];
}

/** CPLEX LP text of one model, with its own names (see blocksToLpText). */
export function toLpText(model: IlpModel, title = 'arrayfuse'): string {
  return blocksToLpText(loneBlock(model), { name: title, comments: [`${title}: fusion ILP (paper Figure 5), written by arrayfuse`] });
}

/** Free MPS text of one model, with its own names (see blocksToMpsText). */
export function toMpsText(model: IlpModel, title = 'arrayfuse'): string {
  return blocksToMpsText(loneBlock(model), { name: title, comments: [`${title}: fusion ILP (paper Figure 5), written by arrayfuse`] });
}
