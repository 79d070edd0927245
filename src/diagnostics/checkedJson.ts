// The checked-JSON reader that the three JSON inputs share (IR JSON, src/ir/json.ts; graph
// JSON, src/graph/fromJson.ts; value JSON, src/runtime/io/jsonValues.ts): parsing with the
// position of a syntax error, JSON paths (`body.stmts[3].fn`, `$.edges[2].from`, `data[1][0]`),
// errors that start with the path of the offending value and, where a format wants it, point
// at that value in the text, and a guard against nesting deeper than later recursion can go.
//
// What a format accepts and how its messages describe a wrong value stay with the format: this
// module knows JSON, not arrayfuse. Every walk here uses an explicit stack, because the text is
// untrusted and may nest arbitrarily deep.

import { type DiagnosticCode, type SourceFile, type Span, type UserError, userError } from './index.js';

export type Json = unknown;
export type JsonObject = Readonly<Record<string, Json>>;

/** A JSON path one step further: `a[3]` for an index, `a.b` for a key (just `b` under the root ``). */
export function jsonPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** The path of the whole document: `$` (graph JSON) or the empty path (IR and value JSON). */
export type JsonRoot = '$' | '';

/** Where a format's errors point: the text they came from, if any, and whether to locate values. */
export interface JsonSource {
  readonly file: SourceFile | undefined;
  /** Errors carry the span of the value their path names (else only the file). */
  readonly located: boolean;
  readonly root: JsonRoot;
}

/**
 * The UserError for the value at `path`: the message starts with the path (unless it is the
 * root ``), and a located source points at the value, or at what encloses it when it is missing.
 */
export function jsonError(source: JsonSource, code: DiagnosticCode, path: string, message: string, notes?: readonly string[]): UserError {
  const span = source.located && source.file !== undefined ? spanOfPath(source.file.text, path, source.root) : undefined;
  return userError(code, path === '' ? message : `${path}: ${message}`, { file: source.file, span }, notes);
}

/** The path one step up (`$.a[2]` → `$.a`, `a` → the root ``), or undefined at the root. */
function parentPath(path: string, root: JsonRoot): string | undefined {
  if (path === root) return undefined;
  const m = /(\.[^.[\]]*|\[\d+\])$/.exec(path);
  if (m !== null) return path.slice(0, m.index);
  return root === '' ? '' : undefined;
}

/**
 * Where the value at a JSON path lies in the text (already known to parse), so that an error
 * given text points at its line (`$.edges[2].from` under the root `$`, `body.stmts[3]` under
 * the root ``). Rescans the text: only errors call it.
 */
export function spanOfPath(text: string, path: string, root: JsonRoot): Span | undefined {
  const spans = new Map<string, Span>();
  let i = 0;
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    return JSON.parse(text.slice(start, ++i)) as string;
  };
  interface Open {
    readonly at: string;
    readonly start: number;
    readonly object: boolean;
    count: number;
  }
  const open: Open[] = [];
  let at: string | undefined = root;
  while (at !== undefined) {
    // One value at `at`: a container is opened (closed below), a scalar is skipped whole.
    space();
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      open.push({ at, start, object: c === '{', count: 0 });
    } else {
      if (c === '"') string();
      else while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
      spans.set(at, { start, end: i });
    }
    // The next value: the next member of the innermost open container, closing finished ones.
    at = undefined;
    while (at === undefined && open.length > 0) {
      const top = open[open.length - 1]!;
      space();
      if (text[i] === ',') i++;
      space();
      if (i < text.length && text[i] !== (top.object ? '}' : ']')) {
        if (top.object) {
          const key = string();
          space();
          i++; // the colon
          at = jsonPath(top.at, key);
        } else at = jsonPath(top.at, top.count);
        top.count++;
      } else {
        i++;
        spans.set(top.at, { start: top.start, end: i });
        open.pop();
      }
    }
  }
  // A path naming a missing field or an unknown key's value falls back to what encloses it.
  for (let at: string | undefined = path; at !== undefined; at = parentPath(at, root)) {
    const span = spans.get(at);
    if (span !== undefined) return span;
  }
  return undefined;
}

/** Why text is not JSON, and where. */
export interface JsonSyntaxError {
  /** The engine's message. */
  readonly message: string;
  /** The first offending character by JSON's grammar (jsonSyntaxErrorOffset). */
  readonly offset: number;
  /** The position the engine's message names, if it names one (Node 20's often do not). */
  readonly engineOffset: number | null;
}

/** Parsed JSON, or where and why the text is not JSON. */
export type ParsedJson = { readonly ok: true; readonly value: Json } | ({ readonly ok: false } & JsonSyntaxError);

/** JSON.parse, with the position of the first syntax error when it fails. */
export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const named = /position (\d+)/.exec(message);
    return { ok: false, message, offset: jsonSyntaxErrorOffset(text), engineOffset: named === null ? null : Number(named[1]) };
  }
}

/**
 * The offset of the first syntax error in text that JSON.parse rejected. Node 20's messages
 * do not always say where ("Unexpected token '}', …"), and differ between engines, so a small
 * recursive-descent scan of JSON's grammar finds the spot. Text nested beyond what the scan's
 * recursion can follow gets the end of the text.
 */
export function jsonSyntaxErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const bad = (): never => {
    throw i;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else bad();
  };
  const string = (): void => {
    if (text[i] !== '"') bad();
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) bad();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) bad();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) bad();
      }
      i++;
    }
    if (i >= text.length) bad();
    i++;
  };
  const number = (): void => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (m === null || m[0] === '' || m[0] === '-') bad();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        string();
        ws();
        if (text[i] !== ':') bad();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else bad();
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else bad();
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  try {
    value();
    ws();
    if (i < text.length) bad();
  } catch (offset) {
    if (typeof offset === 'number') return offset;
    if (offset instanceof RangeError) return text.length;
    throw offset;
  }
  return text.length;
}

/**
 * The keys on the path to the first container nested deeper than `maxDepth`, walking as a
 * stack does (the last member first), or null; `keys.reduce(jsonPath, '')` is the path.
 * `counts` says which containers make a level: all of them for a format whose every object and
 * list a reader recurses into, lists alone for nested data. The keys are collected only for the
 * container found, from parent links, so deep input costs linear time.
 */
export function tooDeepJson(value: Json, maxDepth: number, counts: 'containers' | 'lists'): (string | number)[] | null {
  interface Visit {
    readonly value: Json;
    readonly depth: number;
    readonly parent: Visit | null;
    readonly key: string | number;
  }
  const keysTo = (visit: Visit): (string | number)[] => {
    const keys: (string | number)[] = [];
    for (let v: Visit | null = visit; v !== null && v.parent !== null; v = v.parent) keys.push(v.key);
    return keys.reverse();
  };
  const stack: Visit[] = [{ value, depth: 0, parent: null, key: '' }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const x = top.value;
    if (typeof x !== 'object' || x === null) continue;
    const level = counts === 'containers' || Array.isArray(x);
    if (level && top.depth + 1 > maxDepth) return keysTo(top);
    const depth = level ? top.depth + 1 : top.depth;
    const parent = top;
    if (Array.isArray(x)) x.forEach((v: Json, i) => stack.push({ value: v, depth, parent, key: i }));
    else for (const [k, v] of Object.entries(x)) stack.push({ value: v, depth, parent, key: k });
  }
  return null;
}
