import { it } from 'vitest';
import { arr, check } from './redteamHarness.js';
it('f32 seeds', async () => {
  await check('def main(xs):\n  return scanl(+, f32(0.1), xs), scanr(*, f32(1.1), xs), fold(+, f32(0.1), xs), fold(max, f32(0.3), xs)\n', { xs: arr('f32', [9], (i) => Math.fround(i * 0.37 - 1)) }, { chunks: [1, 2, 4, undefined] });
  await check('def main(xs, c):\n  return scanl(+, c, xs), fold(+, c, xs)\n', { xs: arr('f32', [9], (i) => Math.fround(i * 0.37 - 1)), c: { kind: 'scalar', elem: 'f32', value: Math.fround(0.1) } }, { chunks: [1, 2, 4, undefined] });
});
