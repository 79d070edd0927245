// The registry of diagnostic codes: every code a UserError may carry, with a one-line title.
//
// One typed map is the single source of the codes: `DiagnosticCode` is its key type, so a
// diagnostic with a code not listed here does not compile, and docs/ERRORS.md lists exactly
// these codes with these titles (test/diagnostics/codes.test.ts checks both ways). Codes are
// stable; each stage owns a range (E1xx syntax, E2xx names and lowering, E29x IR JSON, E3xx
// types and shapes, E4xx run time, E5xx files and command-line values, E6xx planner, graph
// JSON and cost text). Messages are written where a diagnostic is raised; the title says what
// the code is about, for the table and for tools that group errors.

export const diagnosticCodes = {
  // syntax: lexing and parsing (src/syntax/codes.ts names them for the parser)
  E100: 'unknown character',
  E101: 'tab in indentation',
  E102: 'dedent matching no outer block',
  E103: 'unclosed bracket',
  E104: 'unmatched or mismatched bracket',
  E105: 'malformed number',
  E110: 'expected an expression',
  E111: 'expected a particular token',
  E112: 'unexpected indent',
  E113: 'expected an indented block',
  E114: 'invalid assignment target or lambda parameter',
  E115: 'expression statement',
  E116: 'statement outside a def',
  E117: 'unknown element type',
  E118: 'chained comparison',
  E119: 'for without a range of one to three arguments',
  E120: 'nested def',
  E121: 'elif or else without if',
  E122: 'keyword used as a name',
  E123: 'augmented assignment',
  E124: 'nesting too deep',
  E125: 'a parameter named twice',
  // lowering: names, calls, static evaluation
  E201: 'unknown name',
  E202: 'wrong number of arguments',
  E203: 'calling a non-function',
  E204: 'for range not known at compile time',
  E205: 'recursion too deep',
  E206: 'a compile-time decision needs a run-time size',
  E207: 'lambda arity',
  E208: 'returning a function',
  E209: 'name bound in one branch only',
  E210: 'no return',
  E211: 'return inside run-time control flow',
  E212: 'array-level construct in element code',
  E213: 'division by zero in a value needed at compile time',
  E214: 'no entry function',
  E215: 'fold with a lambda needs a seed',
  E216: 'bad destructuring',
  E217: 'bad tuple index',
  E218: 'duplicate def',
  E219: 'function carried by a loop',
  E220: 'compile-time budget exceeded',
  E221: 'element expression nested too deep',
  E222: 'run-time control flow nested too deep',
  // a core-IR program given as JSON
  E290: 'IR JSON: not valid JSON',
  E291: 'IR JSON: a value of the wrong JSON type',
  E292: 'IR JSON: an unknown or missing field',
  E293: 'IR JSON: an unknown enumeration value',
  E294: 'IR JSON: the program breaks an IR invariant',
  E295: 'IR JSON: wrong format or version',
  E296: 'IR JSON: nested too deep',
  // lowering: types, ranks, compile-time shapes
  E301: 'type mismatch',
  E302: 'array expected',
  E303: 'scalar expected',
  E304: 'rank mismatch',
  E305: 'index type does not match the source rank',
  E306: 'wrong number of indices',
  E307: 'signature does not match the parameter',
  E308: 'branches or loop iterations disagree',
  E310: 'operator on incompatible types',
  E311: 'static shape mismatch',
  E312: 'number does not fit its type',
  E313: 'static shape too large',
  // run time (interpreter and generated code alike)
  E401: 'integer division by zero',
  E402: 'index out of range',
  E403: 'shapes differ',
  E404: 'generate size not a non-negative integer',
  E405: 'while iteration limit reached',
  E406: 'array too large to allocate',
  E410: 'wrong number of inputs',
  E411: 'input of the wrong structure',
  E412: 'input of the wrong element type',
  E413: 'input of the wrong rank',
  E414: 'malformed input value',
  // input and output files, --arg, --random
  E500: 'file cannot be read or written',
  E501: 'not a .npy file',
  E502: 'unsupported .npy version',
  E503: 'malformed .npy header',
  E504: 'unsupported .npy dtype',
  E505: 'big-endian .npy data',
  E506: 'Fortran-order .npy data',
  E507: '.npy data length does not match the shape',
  E508: '.npy header too long for version 1',
  E510: 'value file is not valid JSON',
  E511: 'malformed JSON value',
  E512: 'JSON value: unknown dtype',
  E513: 'JSON value: shape and data disagree',
  E514: 'JSON value: a number not of the dtype',
  E520: 'bad scalar argument',
  E521: 'bad --random spec',
  E522: 'unknown file type',
  // command-line values
  E523: 'bad --shape spec',
  E524: 'bad command-line value',
  // planner options and graphs
  E600: 'bad time limit',
  E601: 'two scatters into one destination',
  E602: 'destination read after its scatter',
  E609: 'bad weight',
  // a dependence graph given as JSON
  E610: 'graph JSON: not valid JSON',
  E611: 'graph JSON: wrong format or version',
  E612: 'graph JSON: a value of the wrong type or a missing field',
  E613: 'graph JSON: unknown node kind',
  E614: 'graph JSON: a name, array or id used twice',
  E615: 'graph JSON: edge from or to an unknown node',
  E616: 'graph JSON: unknown or unread role',
  E617: 'graph JSON: an array the producer does not produce',
  E618: 'graph JSON: fusible where it cannot be',
  E619: 'graph JSON: unknown or missing reason',
  E620: 'graph JSON: a cycle',
  E621: 'graph JSON: a scatter without exactly one destination',
  E622: 'graph JSON: two scatters on one array',
  E623: 'graph JSON: bad weight',
  E624: 'graph JSON: bad size',
  E625: 'graph JSON: unknown result',
  E626: 'graph JSON: bad blocks',
  E627: 'graph JSON: bad element type',
  E628: 'graph JSON: unknown field',
  E629: 'graph JSON: blocks nested too deep',
  // cost function text (--cost)
  E650: 'empty cost function',
  E651: 'unknown cost name',
  E652: 'malformed coefficient',
  E653: 'negative coefficient or subtraction',
  E654: 'missing * after a coefficient',
  E655: 'expected a cost name',
  E656: 'coefficient too large',
  E657: 'unexpected character in the cost',
  E658: 'coefficient after the cost name',
  E659: 'expected + between cost terms',
  // checker
  E670: 'block too large for brute force',
} as const satisfies Readonly<Record<`E${number}`, string>>;

/** A registered diagnostic code; a code missing from `diagnosticCodes` is a type error. */
export type DiagnosticCode = keyof typeof diagnosticCodes;

/** The title of a registered code. */
export function diagnosticTitle(code: DiagnosticCode): string {
  return diagnosticCodes[code];
}
