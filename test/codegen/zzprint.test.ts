import { test } from 'vitest';
import { generateProgram } from '../../src/codegen/index.js';
import { planMemory } from '../../src/memory/index.js';
import { prepare, array } from './parallelPrograms.js';
test('print', async () => {
  const src = process.env['SRC']!;
  const { program, plan } = await prepare(src, JSON.parse(process.env['INP']!, (k, v) => (v && v.elem ? array(v.elem, v.shape, (j) => j) : v)), 'ilp', process.env['UNIQ'] === '1');
  const g = generateProgram(program, plan, { counters: false, memory: planMemory(program, plan), parallel: true });
  console.log(g.text, JSON.stringify(g.schedules));
});
