// before
const h1 = row * 2;
const h2 = row * 2;
for (let k = 1; k < n + 1; k++) {
  const m = k - 1 | 0;
  const p = k + 1 | 0;
  out[h1 + k] = a[h1 + m] + a[h2 + k] * 2 + a[h2 + p];
}
// after
const h1 = row * 2;
const h2 = row * 2;
if (1 < n + 1 && Math.floor(1) === 1 && 1 - 1 >= (-2147483648) && n + 1 + 1 <= 2147483648) {
  let r1000 = a[h1];
  let r1001 = a[h1 + 1];
  for (let k = 1; k < n + 1; k++) {
    const r1002 = a[h1 + k + 1];
    const m = k - 1 | 0;
    const p = k + 1 | 0;
    out[h1 + k] = r1000 + r1001 * 2 + r1002;
    r1000 = r1001;
    r1001 = r1002;
  }
} else {
  for (let k = 1; k < n + 1; k++) {
    const m = k - 1 | 0;
    const p = k + 1 | 0;
    out[h1 + k] = a[h1 + m] + a[h2 + k] * 2 + a[h2 + p];
  }
}
