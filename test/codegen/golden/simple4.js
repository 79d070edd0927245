function c0(rt, n1, a0, n3, n4, a2, a5) {
  for (let i6 = 0; i6 < n1; i6++) {
    const x7 = a0[i6];
    const j8 = x7 >= 0 && x7 < n3 ? x7 : rt.oob(0, [x7], [n3], i6, [n1]);
    let acc11 = 0;
    for (let j9 = 0; j9 < n4; j9++) {
      const p10 = j8 * n4 + j9;
      const x12 = a2[p10];
      const r13 = acc11 + x12;
      acc11 = r13;
    }
    a5[i6] = acc11;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  const a2 = inputs[1].data;
  const n3 = inputs[1].shape[0];
  const n4 = inputs[1].shape[1];
  // cluster 0: shapes, checks, manifest arrays
  const a5 = rt.alloc(0, n1);
  rt.enter(0);
  c0(rt, n1, a0, n3, n4, a2, a5);
  rt.leave(0);
  return [[a5, [n1]]];
}
