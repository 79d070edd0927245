// Comparing the WebGPU back end's results with the reference interpreter's in vitest, by the
// stated f32 tolerance (tolerance.ts, shared with bench/webgpu).

import { expect } from 'vitest';
import type { Output } from '../../src/index.js';
import { firstDifference } from './tolerance.js';

export function expectClose(got: Readonly<Record<string, Output>>, want: Readonly<Record<string, Output>>, label: string): void {
  expect(Object.keys(got).sort(), label).toEqual(Object.keys(want).sort());
  for (const name of Object.keys(want)) expect(firstDifference(got[name]!, want[name]!, `${label}: ${name}`)).toBeNull();
}
