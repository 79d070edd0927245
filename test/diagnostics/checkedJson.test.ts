// The checked-JSON reader shared by IR JSON, graph JSON and value JSON: paths, located errors,
// syntax-error positions and the nesting guard. The formats' own tests (test/ir/json.test.ts,
// test/plan/graphJson.test.ts, test/io/values.test.ts) check their messages through it.
import { describe, expect, it } from 'vitest';
import { jsonError, jsonPath, parseJson, spanOfPath, tooDeepJson } from '../../src/diagnostics/checkedJson.js';
import { SourceFile } from '../../src/diagnostics/index.js';

const text = '{\n  "nodes": [\n    {"name": "a", "outs": ["x", "y"]}\n  ],\n  "n": 3\n}';
const slice = (path: string, root: '$' | ''): string | undefined => {
  const span = spanOfPath(text, path, root);
  return span === undefined ? undefined : text.slice(span.start, span.end);
};

describe('jsonPath', () => {
  it('indexes with brackets and keys with dots, a key under the empty root bare', () => {
    expect(['nodes', 0, 'outs', 1].reduce<string>(jsonPath, '$')).toBe('$.nodes[0].outs[1]');
    expect(['nodes', 0, 'outs', 1].reduce<string>(jsonPath, '')).toBe('nodes[0].outs[1]');
    expect(jsonPath('', 2)).toBe('[2]');
  });
});

describe('spanOfPath', () => {
  it('finds a value under either root', () => {
    expect(slice('$.nodes[0].outs[1]', '$')).toBe('"y"');
    expect(slice('nodes[0].outs[1]', '')).toBe('"y"');
    expect(slice('$.n', '$')).toBe('3');
    expect(slice('nodes[0]', '')).toBe('{"name": "a", "outs": ["x", "y"]}');
  });
  it('falls back to what encloses a missing value, up to the root', () => {
    expect(slice('$.nodes[0].kind', '$')).toBe('{"name": "a", "outs": ["x", "y"]}');
    expect(slice('missing', '')).toBe(text);
    expect(slice('$.missing.deeper', '$')).toBe(text);
  });
});

describe('jsonError', () => {
  const file = new SourceFile('g.json', text);
  it('starts the message with the path and locates the value when asked', () => {
    const d = jsonError({ file, located: true, root: '$' }, 'E612', '$.n', 'expected a string', ['a note']).diagnostics[0]!;
    expect(d).toMatchObject({ code: 'E612', message: '$.n: expected a string', notes: ['a note'] });
    expect(text.slice(d.span!.start, d.span!.end)).toBe('3');
  });
  it('names only the file when not located, and no path at the root', () => {
    const d = jsonError({ file, located: false, root: '' }, 'E291', '', 'expected a Program').diagnostics[0]!;
    expect(d.message).toBe('expected a Program');
    expect(d.file).toBe(file);
    expect(d.span).toBeUndefined();
  });
});

describe('parseJson', () => {
  it('parses, or says where the text stops being JSON', () => {
    expect(parseJson('[1, {"a": null}]')).toEqual({ ok: true, value: [1, { a: null }] });
    const bad = parseJson('{"a": 1,\n "b": }');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.offset).toBe('{"a": 1,\n "b": '.length);
    // The engine's own position, where its message names one.
    const named = parseJson('[1, 2');
    expect(named.ok).toBe(false);
    if (!named.ok) expect(named.engineOffset).toBe(/position \d+/.test(named.message) ? 5 : null);
  });
  it('gives the end of the text where the scan cannot follow the nesting', () => {
    const deep = '['.repeat(1_000_000);
    const bad = parseJson(deep);
    expect(bad.ok ? -1 : bad.offset).toBe(deep.length);
  });
});

describe('tooDeepJson', () => {
  const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : [nested(depth - 1, leaf)]);
  it('counts every container, or lists alone', () => {
    const value = { data: nested(3, 1) };
    expect(tooDeepJson(value, 4, 'containers')).toBeNull();
    expect(tooDeepJson(value, 3, 'containers')).toEqual(['data', 0, 0]);
    expect(tooDeepJson(value, 3, 'lists')).toBeNull();
    expect(tooDeepJson(value, 2, 'lists')).toEqual(['data', 0, 0]);
  });
  it('walks a million levels without recursion', () => {
    const keys = tooDeepJson(JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`), 64, 'lists');
    expect(keys).toHaveLength(64);
  });
});
