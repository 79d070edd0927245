function c0(rt, n3, a2, a4) {
  for (let i5 = 0; i5 < n3; i5++) {
    const x6 = a2[i5];
    const m7 = x6 * x6 + 1;
    a4[i5] = m7;
  }
}
function c1(rt, n1, a0, n3, a4, a8) {
  for (let i9 = 0; i9 < n1; i9++) {
    const x10 = a0[i9];
    const j11 = x10 >= 0 && x10 < n3 ? x10 : rt.oob(0, [x10], [n3], i9, [n1]);
    const x12 = a4[j11];
    a8[i9] = x12;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  const a2 = inputs[1].data;
  const n3 = inputs[1].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  const a4 = rt.alloc(0, n3);
  rt.enter(0);
  c0(rt, n3, a2, a4);
  rt.leave(0);
  // cluster 1: shapes, checks, manifest arrays
  const a8 = rt.alloc(1, n1);
  rt.enter(1);
  c1(rt, n1, a0, n3, a4, a8);
  rt.leave(1);
  return [[a4, [n3]], [a8, [n1]]];
}
