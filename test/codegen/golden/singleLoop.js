function c0(rt, n2, n1, a0, a3) {
  for (let i4 = 0; i4 < n2; i4++) {
    const g5 = (n1 - i4 | 0) - 1 | 0;
    const j6 = g5 >= 0 && g5 < n1 ? g5 : rt.oob(3, [g5], [n1], i4, [n2]);
    const x7 = a0[j6];
    const x8 = a0[i4];
    const m9 = x8 * 2;
    const m10 = m9 + 1;
    const m11 = x7 + m9 + m10;
    a3[i4] = m11;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  const n2 = n1;
  if (n2 < 0) {
    rt.size(0, n2);
  }
  if (n2 !== n1) {
    rt.shapes(1, [n2], [n1]);
  }
  if (n2 !== n1) {
    rt.shapes(2, [n2], [n1]);
  }
  const a3 = rt.alloc(0, n2);
  rt.enter(0);
  c0(rt, n2, n1, a0, a3);
  rt.leave(0);
  return [[a3, [n2]]];
}
