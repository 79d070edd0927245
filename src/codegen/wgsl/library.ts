// WGSL functions that give JavaScript's meaning where WGSL's builtins differ, and the integer
// helpers the generated JavaScript calls on `rt` (integer `**`, bool `//` and `%`). A kernel
// includes only the ones its body uses (`librarySource`), with what they use themselves.
//
// None of them faults: a helper cannot end the invocation (a WGSL `return` in a helper returns to
// the caller), so every fault the JavaScript raises is tested inline, before the call, by the
// translator (translate.ts).
//
// NaN and ±infinity are never written as literals: a WGSL constant expression that produces one
// is a shader-creation error, so they come from the bits of private variables, which are
// run-time values. NaN is recognised by its bits, never by `x != x`.

/** The helpers' names; each maps to its WGSL text and the helpers that text calls. */
export type LibraryName =
  | 'nan'
  | 'inf'
  | 'is_nan'
  | 'to_int32'
  | 'min_f32'
  | 'max_f32'
  | 'floordiv_i32'
  | 'ceildiv_i32'
  | 'pow_i32'
  | 'pow_u32'
  | 'pow_f32'
  | 'cbrt_f32'
  | 'tanh_f32'
  | 'truthy_f32'
  | 'fmod_f32'
  | 'floordiv_f32'
  | 'f32_from_u32'
  | 'f32_from_i32'
  | 'index_f32';

interface LibraryEntry {
  readonly uses: readonly LibraryName[];
  readonly text: string;
}

const library: Readonly<Record<LibraryName, LibraryEntry>> = {
  nan: {
    uses: [],
    text: `var<private> nan_bits: u32 = 0x7fc00000u;
fn js_nan() -> f32 { return bitcast<f32>(nan_bits); }`,
  },
  inf: {
    uses: [],
    text: `var<private> inf_bits: u32 = 0x7f800000u;
fn js_inf() -> f32 { return bitcast<f32>(inf_bits); }`,
  },
  is_nan: {
    uses: [],
    text: `fn js_is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }`,
  },
  // ToInt32 of a number held as an f32: truncation, then modulo 2^32; NaN and ±inf give 0. From the
  // bits: the value is m · 2^(e − 23) with a 24-bit significand m.
  to_int32: {
    uses: [],
    text: `fn js_to_int32(x: f32) -> i32 {
  let b = bitcast<u32>(x);
  let e = i32((b >> 23u) & 0xffu) - 127;
  if (e < 0 || e == 128) { return 0; }
  let m = (b & 0x7fffffu) | 0x800000u;
  var r = 0u;
  if (e <= 23) { r = m >> u32(23 - e); } else if (e < 55) { r = m << u32(e - 23); }
  if ((b & 0x80000000u) != 0u) { r = 0u - r; }
  return bitcast<i32>(r);
}`,
  },
  // Math.min / Math.max: NaN if either is NaN; of two equal zeros, -0 is the smaller. For equal
  // operands the bits are equal except for ±0, where OR gives -0 and AND +0.
  min_f32: {
    uses: ['is_nan', 'nan'],
    text: `fn js_min(a: f32, b: f32) -> f32 {
  if (js_is_nan(a) || js_is_nan(b)) { return js_nan(); }
  if (a < b) { return a; }
  if (b < a) { return b; }
  return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b));
}`,
  },
  max_f32: {
    uses: ['is_nan', 'nan'],
    text: `fn js_max(a: f32, b: f32) -> f32 {
  if (js_is_nan(a) || js_is_nan(b)) { return js_nan(); }
  if (a > b) { return a; }
  if (b > a) { return b; }
  return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b));
}`,
  },
  // Math.floor(a / b) and Math.ceil(a / b) of i32 values, b != 0 (tested before the call): the
  // truncated quotient moved by one when the remainder is not zero. WGSL's i32 division gives
  // -2^31 for -2^31 / -1 (whose remainder is 0): the low 32 bits of JavaScript's 2^31.
  floordiv_i32: {
    uses: [],
    text: `fn js_floordiv_i32(a: i32, b: i32) -> i32 {
  let q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) { return q - 1; }
  return q;
}`,
  },
  ceildiv_i32: {
    uses: [],
    text: `fn js_ceildiv_i32(a: i32, b: i32) -> i32 {
  let q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) { return q + 1; }
  return q;
}`,
  },
  // rt.pow_i32 (scalarOps' power): exact repeated squaring with wrapping products; a negative
  // power is Math.trunc(Math.pow(a, b)): 1 for a = 1, ±1 for a = -1, else 0 (a = 0 faults,
  // tested before the call).
  pow_i32: {
    uses: [],
    text: `fn js_pow_i32(a: i32, b: i32) -> i32 {
  if (b < 0) {
    if (a == 1) { return 1; }
    if (a == -1) { return select(1, -1, (b & 1) != 0); }
    return 0;
  }
  var result = 1;
  var base = a;
  var e = u32(b);
  loop {
    if (e == 0u) { break; }
    if ((e & 1u) != 0u) { result = result * base; }
    base = base * base;
    e = e >> 1u;
  }
  return result;
}`,
  },
  pow_u32: {
    uses: [],
    text: `fn js_pow_u32(a: u32, b: u32) -> u32 {
  var result = 1u;
  var base = a;
  var e = b;
  loop {
    if (e == 0u) { break; }
    if ((e & 1u) != 0u) { result = result * base; }
    base = base * base;
    e = e >> 1u;
  }
  return result;
}`,
  },
  // Math.pow's special cases (ECMAScript Number::exponentiate), then |a|^b by exp2/log2 with the
  // sign of an odd integer power of a negative base. WGSL's pow is undefined for a < 0.
  pow_f32: {
    uses: ['is_nan', 'nan', 'inf'],
    text: `fn js_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return 1.0; }
  if (js_is_nan(a) || js_is_nan(b)) { return js_nan(); }
  let ab = abs(a);
  let binf = abs(b) == js_inf();
  if (binf) {
    if (ab == 1.0) { return js_nan(); }
    if ((ab > 1.0) == (b > 0.0)) { return js_inf(); }
    return 0.0;
  }
  let bint = trunc(b) == b;
  let odd = bint && abs(b) < 16777216.0 && (i32(abs(b)) & 1) == 1;
  if (ab == js_inf() || a == 0.0) {
    // |a| infinite or zero: the magnitude is 0 or infinity, by which way b points.
    let big = (ab == js_inf()) == (b > 0.0);
    var m = 0.0;
    if (big) { m = js_inf(); }
    if (a < 0.0 || (a == 0.0 && (bitcast<u32>(a) & 0x80000000u) != 0u)) {
      if (odd) { return -m; }
    }
    return m;
  }
  if (a < 0.0 && !bint) { return js_nan(); }
  if (bint && abs(b) <= 64.0) {
    // A small integer power by repeated squaring: exact where the powers are (3^7), otherwise a
    // few roundings, where exp2(b · log2 |a|) loses bits in proportion to |b · log2 |a||.
    var e = u32(abs(b));
    var base = ab;
    var p = 1.0;
    loop {
      if (e == 0u) { break; }
      if ((e & 1u) != 0u) { p = p * base; }
      base = base * base;
      e = e >> 1u;
    }
    if (b < 0.0) { p = 1.0 / p; }
    if (a < 0.0 && odd) { return -p; }
    return p;
  }
  let r = exp2(b * log2(ab));
  if (a < 0.0 && odd) { return -r; }
  return r;
}`,
  },
  // Math.cbrt: the real cube root (negative for a negative argument); zeros, infinities and NaN
  // are themselves. One Newton step refines exp2(log2(|x|) / 3).
  cbrt_f32: {
    uses: ['is_nan', 'inf'],
    text: `fn js_cbrt(x: f32) -> f32 {
  if (x == 0.0 || js_is_nan(x) || abs(x) == js_inf()) { return x; }
  let ax = abs(x);
  var r = exp2(log2(ax) / 3.0);
  r = r - (r * r * r - ax) / (3.0 * r * r);
  if (x < 0.0) { return -r; }
  return r;
}`,
  },
  // Math.tanh: ±1 beyond |x| = 10 (where an exp-based tanh may overflow to NaN), else WGSL's.
  tanh_f32: {
    uses: [],
    text: `fn js_tanh(x: f32) -> f32 {
  if (x > 10.0) { return 1.0; }
  if (x < -10.0) { return -1.0; }
  if (x == 0.0) { return x; }
  return tanh(x);
}`,
  },
  // JavaScript truthiness of a number: not ±0 and not NaN.
  truthy_f32: {
    uses: ['is_nan'],
    text: `fn js_truthy(x: f32) -> bool { return x != 0.0 && !js_is_nan(x); }`,
  },
  // The remainder of a / b truncated toward zero (JavaScript's % on doubles), exactly: the
  // result is representable, so it is computed on the significands by shift-and-subtract (one
  // step per bit of the exponent difference, at most 277). NaN for b = 0, an infinite a, or NaN.
  fmod_f32: {
    uses: ['is_nan', 'nan', 'inf'],
    text: `fn js_fmod(a: f32, b: f32) -> f32 {
  if (js_is_nan(a) || js_is_nan(b) || b == 0.0 || abs(a) == js_inf()) { return js_nan(); }
  if (abs(b) == js_inf() || a == 0.0) { return a; }
  let ua = bitcast<u32>(a) & 0x7fffffffu;
  let ub = bitcast<u32>(b) & 0x7fffffffu;
  if (ua < ub) { return a; }
  var ea = i32(ua >> 23u);
  var eb = i32(ub >> 23u);
  var ma = ua & 0x7fffffu;
  var mb = ub & 0x7fffffu;
  if (ea == 0) { ea = 1; } else { ma = ma | 0x800000u; }
  if (eb == 0) { eb = 1; } else { mb = mb | 0x800000u; }
  var r = ma % mb;
  var e = ea;
  loop {
    if (e <= eb) { break; }
    r = (r << 1u) % mb;
    e = e - 1;
  }
  // r · 2^(eb − 150) is the remainder's magnitude: normalise it into an f32.
  if (r == 0u) { return bitcast<f32>(bitcast<u32>(a) & 0x80000000u); }
  var m = r;
  var ex = eb;
  loop {
    if (m >= 0x800000u || ex <= 1) { break; }
    m = m << 1u;
    ex = ex - 1;
  }
  var bits = 0u;
  if (m >= 0x800000u) { bits = (u32(ex) << 23u) | (m & 0x7fffffu); } else { bits = m; }
  return bitcast<f32>(bits | (bitcast<u32>(a) & 0x80000000u));
}`,
  },
  // Math.floor(a / b) of f32 values as JavaScript computes it: from the double quotient, whose
  // floor is the exact quotient's. The f32 quotient may round up to an integer the exact one lies
  // just beyond; then the exact remainder says which side it is on (its fraction above one half
  // rounded a positive quotient up, below one half a negative one).
  floordiv_f32: {
    uses: ['fmod_f32', 'is_nan', 'inf'],
    text: `fn js_floordiv_f32(a: f32, b: f32) -> f32 {
  let q = a / b;
  let m = floor(q);
  if (m != q || abs(m) >= 8388608.0 || js_is_nan(q) || abs(q) == js_inf() || abs(b) == js_inf()) { return m; }
  let r = js_fmod(a, b);
  if (r == 0.0) { return m; }
  let big = 2.0 * abs(r) > abs(b);
  let positive = (a < 0.0) == (b < 0.0);
  if (big == positive) { return m - 1.0; }
  return m;
}`,
  },
  // Math.fround of an integer: to the nearest f32, ties to even. WGSL leaves the rounding of an
  // integer conversion to the device (SwiftShader rounds 4293484384 up, JavaScript down), so past
  // 2^24 the significand is rounded here and scaled by ldexp (exact).
  f32_from_u32: {
    uses: [],
    text: `fn js_f32_from_u32(u: u32) -> f32 {
  if (u < 0x1000000u) { return f32(u); }
  let shift = 8u - countLeadingZeros(u);
  var m = u >> shift;
  let rest = u & ((1u << shift) - 1u);
  let half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (m & 1u) == 1u)) { m = m + 1u; }
  return ldexp(f32(m), i32(shift));
}`,
  },
  f32_from_i32: {
    uses: ['f32_from_u32'],
    text: `fn js_f32_from_i32(i: i32) -> f32 {
  let a = js_f32_from_u32(select(u32(i), 0u - bitcast<u32>(i), i < 0));
  return select(a, -a, i < 0);
}`,
  },
  // An element index from a number held as an f32: JavaScript reads an element only at an
  // integer in [0, 2^32 − 1) (anything else is undefined, a bail): 0xffffffff says "not one".
  index_f32: {
    uses: [],
    text: `fn js_index_f32(x: f32) -> u32 {
  if (x >= 0.0 && x < 4294967296.0 && trunc(x) == x) { return u32(x); }
  return 0xffffffffu;
}`,
  },
};

/** The WGSL text of `used` and of everything they use, each once, dependencies first. */
export function librarySource(used: ReadonlySet<LibraryName>): string {
  const order: LibraryName[] = [];
  const seen = new Set<LibraryName>();
  const visit = (n: LibraryName): void => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const d of library[n].uses) visit(d);
    order.push(n);
  };
  [...used].sort().forEach(visit);
  return order.map((n) => library[n].text).join('\n');
}
