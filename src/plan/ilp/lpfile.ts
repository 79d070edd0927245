// CPLEX LP and free MPS text of an IlpModel, for `--emit-lp` / `--emit-mps` and for handing a
// model to CBC (`cbc model.lp solve`) or Gurobi unchanged. Names come from the model's columns
// and rows (`pi_3`, `x_3_5`, …), which are valid in both formats.

import type { IlpModel, Row } from './model.js';

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(15)));
}

function linear(model: IlpModel, cols: readonly number[], coefs: readonly number[]): string {
  const parts: string[] = [];
  cols.forEach((c, i) => {
    const a = coefs[i]!;
    if (a === 0) return;
    const sign = a < 0 ? '-' : '+';
    const mag = Math.abs(a);
    parts.push(`${sign} ${mag === 1 ? '' : `${num(mag)} `}${model.columns[c]!.name}`);
  });
  if (parts.length === 0) return '0 ' + (model.columns[0]?.name ?? 'x');
  const text = parts.join(' ');
  return text.startsWith('+ ') ? text.slice(2) : text;
}

function rowLines(model: IlpModel, row: Row): string[] {
  const lhs = linear(model, row.cols, row.coefs);
  if (row.lower === row.upper) return [` ${row.name}: ${lhs} = ${num(row.lower)}`];
  const out: string[] = [];
  if (row.lower > -Infinity) out.push(` ${row.name}${row.upper < Infinity ? '_lo' : ''}: ${lhs} >= ${num(row.lower)}`);
  if (row.upper < Infinity) out.push(` ${row.name}${row.lower > -Infinity ? '_hi' : ''}: ${lhs} <= ${num(row.upper)}`);
  return out;
}

/** CPLEX LP format. The objective's constant is a fixed column `objconst` (CBC rejects constants). */
export function toLpText(model: IlpModel, title = 'arrayfuse'): string {
  const costCols = model.columns.map((c, i) => (c.cost !== 0 ? i : -1)).filter((i) => i >= 0);
  const objective = costCols.length === 0 ? '' : linear(model, costCols, costCols.map((i) => model.columns[i]!.cost));
  const constant = ` ${model.offset < 0 ? '-' : '+'} ${num(Math.abs(model.offset))} objconst`;
  const lines = [`\\ ${title}: fusion ILP (paper Figure 5), written by arrayfuse`, 'Minimize', ` obj: ${objective}${constant}`, 'Subject To'];
  for (const row of model.rows) lines.push(...rowLines(model, row));
  lines.push('Bounds');
  lines.push(' objconst = 1');
  for (const c of model.columns) {
    if (c.lower === c.upper) lines.push(` ${c.name} = ${num(c.lower)}`);
    else lines.push(` ${num(c.lower)} <= ${c.name} <= ${c.upper === Infinity ? 'inf' : num(c.upper)}`);
  }
  lines.push('General');
  const ints = model.columns.filter((c) => c.integer).map((c) => c.name);
  for (let i = 0; i < ints.length; i += 10) lines.push(` ${ints.slice(i, i + 10).join(' ')}`);
  lines.push('End', '');
  return lines.join('\n');
}

/**
 * Free MPS. Integer columns are bracketed by MARKER lines; bounds are explicit. The NAME line
 * says FREE because CBC 2.10 otherwise reads the file as fixed MPS and misreads BOUNDS lines.
 */
export function toMpsText(model: IlpModel, title = 'arrayfuse'): string {
  const lines = [`NAME ${title} FREE`, 'ROWS', ' N obj'];
  const rowNames: string[][] = [];
  for (const row of model.rows) {
    const names: string[] = [];
    if (row.lower === row.upper) {
      lines.push(` E ${row.name}`);
      names.push(row.name);
    } else {
      if (row.lower > -Infinity) {
        const name = row.upper < Infinity ? `${row.name}_lo` : row.name;
        lines.push(` G ${name}`);
        names.push(name);
      }
      if (row.upper < Infinity) {
        const name = row.lower > -Infinity ? `${row.name}_hi` : row.name;
        lines.push(` L ${name}`);
        names.push(name);
      }
    }
    rowNames.push(names);
  }
  // Column-major entries.
  const entries: { row: string; value: number }[][] = model.columns.map((c) => (c.cost !== 0 ? [{ row: 'obj', value: c.cost }] : []));
  model.rows.forEach((row, r) => {
    row.cols.forEach((c, i) => {
      for (const name of rowNames[r]!) entries[c]!.push({ row: name, value: row.coefs[i]! });
    });
  });
  lines.push('COLUMNS');
  let inInt = false;
  let marker = 0;
  model.columns.forEach((c, i) => {
    if (c.integer !== inInt) {
      lines.push(` MARKER${marker++} 'MARKER' '${c.integer ? 'INTORG' : 'INTEND'}'`);
      inInt = c.integer;
    }
    if (entries[i]!.length === 0) lines.push(` ${c.name} obj 0`);
    for (const e of entries[i]!) lines.push(` ${c.name} ${e.row} ${num(e.value)}`);
  });
  if (inInt) lines.push(` MARKER${marker++} 'MARKER' 'INTEND'`);
  lines.push('RHS');
  if (model.offset !== 0) lines.push(` RHS obj ${num(-model.offset)}`);
  model.rows.forEach((row, r) => {
    for (const name of rowNames[r]!) {
      const value = name.endsWith('_hi') || (row.lower === -Infinity && row.lower !== row.upper) ? row.upper : row.lower;
      if (value !== 0) lines.push(` RHS ${name} ${num(value)}`);
    }
  });
  lines.push('BOUNDS');
  for (const c of model.columns) {
    if (c.lower === c.upper) lines.push(` FX BND ${c.name} ${num(c.lower)}`);
    else {
      lines.push(` LO BND ${c.name} ${num(c.lower)}`);
      lines.push(c.upper === Infinity ? ` PL BND ${c.name}` : ` UP BND ${c.name} ${num(c.upper)}`);
    }
  }
  lines.push('ENDATA', '');
  return lines.join('\n');
}
