function c0(rt, n3, a2, a0, n1, a4) {
  for (let i5 = 0; i5 < n3; i5++) {
    const x6 = a2[i5];
    const m7 = x6 + 1;
    const x8 = a0[i5];
    const j9 = x8 >= 0 && x8 < n3 ? x8 : rt.oob(1, [x8], [n3], i5, [n1]);
    const x10 = a2[j9];
    const m11 = m7 * x10;
    a4[i5] = m11;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  const a2 = inputs[1].data;
  const n3 = inputs[1].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  if (n3 !== n1) {
    rt.shapes(0, [n3], [n1]);
  }
  const a4 = rt.alloc(0, n3);
  rt.enter(0);
  c0(rt, n3, a2, a0, n1, a4);
  rt.leave(0);
  return [[a4, [n3]]];
}
