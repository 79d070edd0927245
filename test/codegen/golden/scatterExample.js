function c0(rt, n1, a0, a2) {
  for (let i3 = 0; i3 < n1; i3++) {
    const x4 = a0[i3];
    const m5 = x4 + 1;
    a2[i3] = m5;
  }
}
function c1(rt, n1, a0, a6) {
  for (let i7 = 0; i7 < n1; i7++) {
    const x8 = a0[i7];
    const m9 = rt.mod_i32(1, x8 * 2 | 0, n1);
    const j10 = m9 >= 0 && m9 < n1 ? m9 : rt.oob(0, [m9], [n1], i7, [n1]);
    const old11 = a6[j10];
    const s12 = old11 + x8;
    a6[j10] = s12;
  }
}
function main(rt, inputs) {
  const a0 = inputs[0].data;
  const n1 = inputs[0].shape[0];
  // cluster 0: shapes, checks, manifest arrays
  const a2 = rt.alloc(0, n1);
  rt.enter(0);
  c0(rt, n1, a0, a2);
  rt.leave(0);
  // cluster 1: shapes, checks, manifest arrays
  const a6 = a2;
  rt.enter(1);
  c1(rt, n1, a0, a6);
  rt.leave(1);
  return [[a6, [n1]]];
}
