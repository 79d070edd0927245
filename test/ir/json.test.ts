// The JSON form: round trips, and untrusted input rejected with a code and a JSON path.

import { describe, expect, it } from 'vitest';
import { UserError, diagnosticPosition } from '../../src/diagnostics/index.js';
import * as fc from 'fast-check';
import { programFromJson, programToJson } from '../../src/ir/json.js';
import { jsonSyntaxErrorOffset } from '../../src/diagnostics/checkedJson.js';
import { printProgram } from '../../src/ir/printer.js';
import { everyStatementProgram } from './fixtures.js';
import { arbitraryCase } from '../util/index.js';

function errorOf(text: string): UserError {
  try {
    programFromJson(text, 'graph.json');
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

const good = everyStatementProgram();
/** The good program's JSON with one edit applied to its parsed form. */
function edited(edit: (p: any) => void): string {
  const j = JSON.parse(programToJson(good));
  edit(j.program);
  return JSON.stringify(j);
}

describe('round trip', () => {
  it('reads back what it writes, non-finite constants and spans included', () => {
    const back = programFromJson(programToJson(good, 2), 'graph.json');
    expect(back).toEqual(good);
    expect(printProgram(back)).toBe(printProgram(good));
  });

  it('encodes the numbers JSON cannot hold as strings', () => {
    const text = programToJson(good);
    expect(text).toContain('"value":"-inf"');
    expect(text.startsWith('{"format":"arrayfuse-ir","version":1,"program":')).toBe(true);
  });

  it('round trips random programs (test/util generator), printing identically', () => {
    fc.assert(
      fc.property(arbitraryCase(), ({ program }) => {
        const back = programFromJson(programToJson(program), 'random.json');
        expect(back).toEqual(program);
        expect(printProgram(back)).toBe(printProgram(program));
      }),
      { numRuns: 60 },
    );
  });

  it('accepts a bare program without the envelope', () => {
    const bare = JSON.stringify(JSON.parse(programToJson(good)).program);
    expect(programFromJson(bare, 'graph.json')).toEqual(good);
  });
});

describe('malformed JSON', () => {
  it.each<[string, string, string, string]>([
    ['not JSON at all', '{"format": "arrayfuse-ir",\n "version": }', 'E290', 'not valid JSON'],
    ['truncated', programToJson(good).slice(0, 50), 'E290', 'not valid JSON'],
    ['a top-level array', '[1, 2]', 'E291', 'expected a Program, got an array'],
    ['a wrong format name', '{"format": "onnx", "version": 1, "program": {}}', 'E295', 'format: expected "arrayfuse-ir", got the string "onnx"'],
    ['a future version', '{"format": "arrayfuse-ir", "version": 9, "program": {}}', 'E295', 'version: unsupported IR format version the number 9'],
    ['a missing field', edited((p) => delete p.body.results), 'E292', 'body.results: missing field of a Block'],
    ['an unknown field', edited((p) => (p.body.stmts[1].colour = 'red')), 'E292', 'body.stmts[1].colour: unknown field in a Stmt (generate)'],
    ['a number where an Expr belongs', edited((p) => (p.body.stmts[2].fn.results[0] = 3)), 'E291', 'body.stmts[2].fn.results[0]: expected an Expr, got the number 3'],
    ['an unknown statement kind', edited((p) => (p.body.stmts[1].kind = 'reduce')), 'E293', 'body.stmts[1].kind: unknown a Stmt kind "reduce"'],
    ['an unknown operator', edited((p) => (p.body.stmts[0].expr.op = '>>>')), 'E293', 'body.stmts[0].expr.op: unknown binary operator ">>>"'],
    ['an unknown element type', edited((p) => (p.params[0].components[0].elem = 'f16')), 'E293', 'params[0].components[0].elem: unknown element type "f16"'],
    ['a negative rank', edited((p) => (p.body.stmts[1].outs[0].rank = -1)), 'E291', 'body.stmts[1].outs[0].rank: expected an integer ≥ 0, got the number -1'],
    ['a fractional node id', edited((p) => (p.body.stmts[3].id = 1.5)), 'E291', 'body.stmts[3].id: expected an integer ≥ 0'],
    ['a span ending before it starts', edited((p) => (p.body.stmts[1].span = { start: 5, end: 2 })), 'E291', 'body.stmts[1].span.end: expected an integer ≥ 5'],
    ['a string constant', edited((p) => (p.body.stmts[2].fn.results[0].else.value = 'zero')), 'E291', 'expected a number (or "inf", "-inf", "nan", "-0")'],
    ['an empty name', edited((p) => (p.body.stmts[3].source[0] = '')), 'E291', 'body.stmts[3].source[0]: expected a non-empty string'],
    ['a null lambda', edited((p) => (p.body.stmts[2].fn = null)), 'E291', 'body.stmts[2].fn: expected a Lambda, got null'],
    ['a dim typed f64', edited((p) => (p.body.stmts[1].shape[0].type = 'f64')), 'E291', 'body.stmts[1].shape[0].type: expected "i32"'],
    ['a use of an undefined array', edited((p) => (p.body.stmts[3].source = ['nowhere'])), 'E294', 'breaks an IR invariant: gather #3: nowhere is not in scope'],
    ['a gather of the wrong arity', edited((p) => (p.body.stmts[3].indices = ['is'])), 'E294', '1 index arrays for a source of rank 2'],
  ])('%s', (_name, text, code, fragment) => {
    const err = errorOf(text);
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain(fragment);
    expect(err.diagnostics[0]!.file?.name).toBe('graph.json');
  });

  it('points a JSON syntax error at its line and column', () => {
    const err = errorOf('{"format": "arrayfuse-ir",\n "version": }');
    expect(diagnosticPosition(err.diagnostics[0]!)).toBe('2:13');
  });
});

describe('jsonSyntaxErrorOffset', () => {
  it('finds no error in any valid JSON text', () => {
    fc.assert(fc.property(fc.json(), (text) => jsonSyntaxErrorOffset(text) === text.length), { numRuns: 300 });
  });

  it.each([
    ['[1, 2,]', 6],
    ['{"a" 1}', 5],
    ['[01]', 2],
    ['"abc', 4],
    ['{"a": tru}', 6],
    ['[1] x', 4],
  ])('%s fails at %i', (text, offset) => {
    expect(jsonSyntaxErrorOffset(text)).toBe(offset);
  });
});

describe('never a crash', () => {
  /** Every (parent, key) slot of a parsed JSON tree. */
  function slots(j: unknown, out: [Record<string | number, unknown>, string | number][] = []): typeof out {
    if (typeof j === 'object' && j !== null) {
      for (const key of Object.keys(j)) {
        const k = Array.isArray(j) ? Number(key) : key;
        out.push([j as Record<string | number, unknown>, k]);
        slots((j as Record<string, unknown>)[key], out);
      }
    }
    return out;
  }

  it('answers any mutation of a valid program with a program or a UserError', () => {
    fc.assert(
      fc.property(arbitraryCase({ combinators: { min: 1, max: 6 } }), fc.nat(), fc.jsonValue(), fc.boolean(), ({ program }, pick, replacement, remove) => {
        const j = JSON.parse(programToJson(program));
        const all = slots(j);
        const [parent, key] = all[pick % all.length]!;
        if (remove && !Array.isArray(parent)) delete parent[key];
        else parent[key] = replacement;
        try {
          programFromJson(JSON.stringify(j), 'mutated.json');
        } catch (e) {
          if (!(e instanceof UserError)) throw e;
          expect(e.code).toMatch(/^E29[0-5]$/);
        }
      }),
      { numRuns: 200 },
    );
  });
});
