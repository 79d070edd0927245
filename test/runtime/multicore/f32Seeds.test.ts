// Folds and scans of f32 arrays whose seed is not an f32 identity (a literal `f32(0.1)`, or a
// scalar input): the chunked forms fold each chunk from the operator's identity and combine the
// seed with the partials in main, where every step must still round to f32. On the real pool at
// threads 1–3 (redteamHarness.ts `check`): at the default chunk length (one chunk here) bit for
// bit js; at chunk lengths 1, 2 and 4 close to js and bit for bit across thread counts.

import { it } from 'vitest';
import { arr, check, sc } from './redteamHarness.js';

const xs = arr('f32', [9], (i) => Math.fround(i * 0.37 - 1));
const chunks = [1, 2, 4, undefined];

it('a literal f32 seed of scanl, scanr, fold + and fold max', async () => {
  await check('def main(xs):\n  return scanl(+, f32(0.1), xs), scanr(*, f32(1.1), xs), fold(+, f32(0.1), xs), fold(max, f32(0.3), xs)\n', { xs }, { chunks });
});

it('an f32 seed given as an input', async () => {
  await check('def main(xs, c):\n  return scanl(+, c, xs), fold(+, c, xs)\n', { xs, c: sc('f32', Math.fround(0.1)) }, { chunks });
});
