function c0(rt, n1, a0, n3, a2, a4) {
  for (let i5 = 0; i5 < n1; i5++) {
    const x6 = a0[i5];
    const j7 = x6 >= 0 && x6 < n3 ? x6 : rt.oob(0, [x6], [n3], i5, [n1]);
    const x8 = a2[j7];
    const m9 = x8 * x8 + 1;
    a4[i5] = m9;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  const a2 = inputs[1].data;
  const n3 = inputs[1].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  const a4 = rt.alloc(0, n1);
  rt.enter(0);
  c0(rt, n1, a0, n3, a2, a4);
  rt.leave(0);
  return [[a4, [n1]]];
}
