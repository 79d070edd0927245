function c0(rt, n3, a2, n1, a0, n5, a4, a6) {
  for (let i7 = 0; i7 < n3; i7++) {
    const x8 = a2[i7];
    const j9 = x8 >= 0 && x8 < n1 ? x8 : rt.oob(0, [x8], [n1], i7, [n3]);
    const x10 = a0[j9];
    const j11 = x10 >= 0 && x10 < n5 ? x10 : rt.oob(1, [x10], [n5], j9, [n1]);
    const x12 = a4[j11];
    a6[i7] = x12;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  const a2 = inputs[1].data;
  const n3 = inputs[1].shape[0];
  const a4 = inputs[2].data;
  const n5 = inputs[2].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  const a6 = rt.alloc(0, n3);
  rt.enter(0);
  c0(rt, n3, a2, n1, a0, n5, a4, a6);
  rt.leave(0);
  return [[a6, [n3]]];
}
