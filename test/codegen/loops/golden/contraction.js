// before
for (let r = 0; r < rows; r++) {
  const qr = r * d;
  let mx = (-1) / 0;
  for (let c = 0; c < cols; c++) {
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc = 0;
    {
      const p = c < inside ? 0 : d;
      const pq = c < inside ? d : d;
      for (let k = 0; k < p; k++) {
        if (k === bad) {
          rt.oob(1, k);
        }
        const gx = q[qr + k];
        const gy = kk[c * d + k];
        acc = acc + gx * gy;
      }
      const hq = qr;
      const hk = c * d;
      for (let k = p; k < pq; k++) {
        const x = q[hq + k];
        const y = kk[hk + k];
        acc = acc + x * y;
      }
      for (let k = pq; k < d; k++) {
        if (k === bad) {
          rt.oob(1, k);
        }
        const gx = q[qr + k];
        const gy = kk[c * d + k];
        acc = acc + gx * gy;
      }
    }
    out[r * cols + c] = acc;
    mx = Math.max(mx, acc);
  }
  rowMax[r] = mx;
}
// after
for (let r = 0; r < rows; r++) {
  const qr = r * d;
  let mx = (-1) / 0;
  const q1024 = (cols - cols % 4) / 4;
  for (let t1025 = 0; t1025 < q1024; t1025++) {
    const c = t1025 * 4;
    const c1001 = c + 1;
    const c1003 = c + 2;
    const c1005 = c + 3;
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc = 0;
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc1007 = 0;
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc1009 = 0;
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc1011 = 0;
    const p = c < inside ? 0 : d;
    const pq = c < inside ? d : d;
    const p1012 = c1001 < inside ? 0 : d;
    const pq1013 = c1001 < inside ? d : d;
    const p1014 = c1003 < inside ? 0 : d;
    const pq1015 = c1003 < inside ? d : d;
    const p1016 = c1005 < inside ? 0 : d;
    const pq1017 = c1005 < inside ? d : d;
    if (p === 0 && pq === d && p1012 === 0 && pq1013 === d && p1014 === 0 && pq1015 === d && p1016 === 0 && pq1017 === d) {
      const hq = qr;
      const hk = c * d;
      const hk1000 = c1001 * d;
      const hk1002 = c1003 * d;
      const hk1004 = c1005 * d;
      for (let k = 0; k < d; k++) {
        const x = q[hq + k];
        const y = kk[hk + k];
        acc = acc + x * y;
        const y1006 = kk[hk1000 + k];
        acc1007 = acc1007 + x * y1006;
        const y1008 = kk[hk1002 + k];
        acc1009 = acc1009 + x * y1008;
        const y1010 = kk[hk1004 + k];
        acc1011 = acc1011 + x * y1010;
      }
      out[r * cols + c] = acc;
      mx = Math.max(mx, acc);
      out[r * cols + c1001] = acc1007;
      mx = Math.max(mx, acc1007);
      out[r * cols + c1003] = acc1009;
      mx = Math.max(mx, acc1009);
      out[r * cols + c1005] = acc1011;
      mx = Math.max(mx, acc1011);
    } else {
      {
        for (let k = 0; k < p; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx = q[qr + k];
          const gy = kk[c * d + k];
          acc = acc + gx * gy;
        }
        const hq = qr;
        const hk = c * d;
        for (let k = p; k < pq; k++) {
          const x = q[hq + k];
          const y = kk[hk + k];
          acc = acc + x * y;
        }
        for (let k = pq; k < d; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx = q[qr + k];
          const gy = kk[c * d + k];
          acc = acc + gx * gy;
        }
        out[r * cols + c] = acc;
        mx = Math.max(mx, acc);
      }
      {
        for (let k = 0; k < p1012; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1018 = q[qr + k];
          const gy1019 = kk[c1001 * d + k];
          acc1007 = acc1007 + gx1018 * gy1019;
        }
        const hq = qr;
        const hk1000 = c1001 * d;
        for (let k = p1012; k < pq1013; k++) {
          const x = q[hq + k];
          const y1006 = kk[hk1000 + k];
          acc1007 = acc1007 + x * y1006;
        }
        for (let k = pq1013; k < d; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1018 = q[qr + k];
          const gy1019 = kk[c1001 * d + k];
          acc1007 = acc1007 + gx1018 * gy1019;
        }
        out[r * cols + c1001] = acc1007;
        mx = Math.max(mx, acc1007);
      }
      {
        for (let k = 0; k < p1014; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1020 = q[qr + k];
          const gy1021 = kk[c1003 * d + k];
          acc1009 = acc1009 + gx1020 * gy1021;
        }
        const hq = qr;
        const hk1002 = c1003 * d;
        for (let k = p1014; k < pq1015; k++) {
          const x = q[hq + k];
          const y1008 = kk[hk1002 + k];
          acc1009 = acc1009 + x * y1008;
        }
        for (let k = pq1015; k < d; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1020 = q[qr + k];
          const gy1021 = kk[c1003 * d + k];
          acc1009 = acc1009 + gx1020 * gy1021;
        }
        out[r * cols + c1003] = acc1009;
        mx = Math.max(mx, acc1009);
      }
      {
        for (let k = 0; k < p1016; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1022 = q[qr + k];
          const gy1023 = kk[c1005 * d + k];
          acc1011 = acc1011 + gx1022 * gy1023;
        }
        const hq = qr;
        const hk1004 = c1005 * d;
        for (let k = p1016; k < pq1017; k++) {
          const x = q[hq + k];
          const y1010 = kk[hk1004 + k];
          acc1011 = acc1011 + x * y1010;
        }
        for (let k = pq1017; k < d; k++) {
          if (k === bad) {
            rt.oob(1, k);
          }
          const gx1022 = q[qr + k];
          const gy1023 = kk[c1005 * d + k];
          acc1011 = acc1011 + gx1022 * gy1023;
        }
        out[r * cols + c1005] = acc1011;
        mx = Math.max(mx, acc1011);
      }
    }
  }
  for (let c = q1024 * 4; c < cols; c++) {
    if (r === badRow) {
      rt.oob(1, k);
    }
    let acc = 0;
    {
      const p = c < inside ? 0 : d;
      const pq = c < inside ? d : d;
      for (let k = 0; k < p; k++) {
        if (k === bad) {
          rt.oob(1, k);
        }
        const gx = q[qr + k];
        const gy = kk[c * d + k];
        acc = acc + gx * gy;
      }
      const hq = qr;
      const hk = c * d;
      for (let k = p; k < pq; k++) {
        const x = q[hq + k];
        const y = kk[hk + k];
        acc = acc + x * y;
      }
      for (let k = pq; k < d; k++) {
        if (k === bad) {
          rt.oob(1, k);
        }
        const gx = q[qr + k];
        const gy = kk[c * d + k];
        acc = acc + gx * gy;
      }
    }
    out[r * cols + c] = acc;
    mx = Math.max(mx, acc);
  }
  rowMax[r] = mx;
}
