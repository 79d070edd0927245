// A small `.fuse` highlighter for CodeMirror: a StreamLanguage tokenizer that knows the
// lexer's keywords (src/syntax/lexer.ts), the combinators and prelude functions, the scalar
// types, numbers, comments and operators. It only colours text; the compiler's own parser
// reports errors (as lint diagnostics).

import { StreamLanguage, type StringStream } from '@codemirror/language';

const keywords: ReadonlySet<string> = new Set([
  'def', 'return', 'if', 'elif', 'else', 'while', 'for', 'in', 'pass', 'lambda', 'lam', 'and', 'or', 'not',
]);
const atoms: ReadonlySet<string> = new Set(['True', 'False', 'true', 'false', 'inf', 'nan']);
const types: ReadonlySet<string> = new Set(['f64', 'f32', 'i32', 'u32', 'u8', 'i8', 'bool']);
/** The combinators of the core and the prelude's functions: shown as built-ins. */
const builtins: ReadonlySet<string> = new Set([
  'generate', 'map', 'gather', 'scatter', 'fold', 'scanl', 'scanr', 'force', 'size', 'shape',
  'zip', 'unzip', 'zipWith', 'zipWith3', 'backpermute', 'permute', 'reverse', 'rotate', 'iota', 'iotaFrom', 'iotaStep', 'fill', 'replicate',
  'transpose', 'take', 'drop', 'sum', 'product', 'maximum', 'minimum', 'filter', 'scatterDrop', 'hist', 'scanlSeg', 'scanrSeg', 'foldSeg',
  'min', 'max', 'abs', 'sqrt', 'exp', 'log', 'sin', 'cos', 'floor', 'ceil', 'popcount', 'clz',
]);

/** The token class of the next token in `stream` (a CodeMirror legacy token name), or null. */
function token(stream: StringStream): string | null {
  if (stream.eatSpace()) return null;
  if (stream.match('#')) {
    stream.skipToEnd();
    return 'comment';
  }
  if (stream.match(/^(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?/)) return 'number';
  if (stream.match(/^(λ|[A-Za-z_][A-Za-z0-9_]*)/)) {
    const word = stream.current();
    if (word === 'λ' || keywords.has(word)) return 'keyword';
    if (atoms.has(word)) return 'atom';
    if (types.has(word)) return 'typeName';
    if (builtins.has(word)) return 'builtin';
    return 'variableName';
  }
  if (stream.match(/^(<<=|>>=|\*\*|\/\/|==|!=|<=|>=|->|<<|>>|[+\-*/%&|^]=|[+\-*/%<>=!&|^~])/)) return 'operator';
  stream.next();
  return 'punctuation';
}

export const fuseLanguage = StreamLanguage.define<null>({
  name: 'fuse',
  startState: () => null,
  token,
  languageData: { commentTokens: { line: '#' } },
});
