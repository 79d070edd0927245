// Grouped bar charts as SVG text, in the style of the paper's Figures 3 and 4: one group per
// program, one bar per strategy, normalised runtime on the y axis, the value printed above each
// bar, the paper's colours. A bar taller than the axis is cut at the top and keeps its printed
// value (the paper's Figure 3 does the same for greedyBottomUpBad).

export interface BarSeries {
  readonly label: string;
  /** One value per group; null draws no bar (the strategy failed or was not run). */
  readonly values: readonly (number | null)[];
}

export interface BarChart {
  readonly title: string;
  readonly yLabel: string;
  readonly yMax: number;
  readonly groups: readonly string[];
  readonly series: readonly BarSeries[];
}

/** The paper's colours c1…c6, then two more for the series it does not have. */
const palette = ['#f3965e', '#aa1555', '#24a793', '#5287c6', '#fae6ab', '#6e3b23', '#9b8ec4', '#7f7f7f'];

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fixed(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** The chart as a standalone SVG document. */
export function renderBarChart(chart: BarChart): string {
  const bar = 12;
  const gapInGroup = 3;
  const groupPad = 28;
  const left = 56;
  const top = 30;
  const plotHeight = 240;
  const legendWidth = 170;
  // Wide enough for a group's label (program name over its size, no rotation).
  const groupWidth = Math.max(chart.series.length * (bar + gapInGroup) - gapInGroup + groupPad, 130);
  const plotWidth = Math.max(1, chart.groups.length) * groupWidth;
  const width = left + plotWidth + legendWidth + 20;
  const height = top + plotHeight + 45;
  // Rounded to a tenth of a pixel: the text stays short and diffs stay readable.
  const y = (v: number): number => Math.round((top + plotHeight - (Math.min(v, chart.yMax) / chart.yMax) * plotHeight) * 10) / 10;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`);
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="${left + plotWidth / 2}" y="18" font-size="13" text-anchor="middle">${escapeXml(chart.title)}</text>`);
  // Axis, ticks and horizontal grid lines at whole units (halves when the axis is short).
  const step = chart.yMax <= 3 ? 0.5 : 1;
  for (let t = 0; t <= chart.yMax + 1e-9; t += step) {
    parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd" stroke-width="0.5"/>`);
    parts.push(`<text x="${left - 6}" y="${y(t) + 3.5}" font-size="10" text-anchor="end">${fixed(t)}</text>`);
  }
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotHeight}" stroke="black"/>`);
  parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${top + plotHeight}" y2="${top + plotHeight}" stroke="black"/>`);
  parts.push(
    `<text x="14" y="${top + plotHeight / 2}" font-size="11" text-anchor="middle" transform="rotate(-90 14 ${top + plotHeight / 2})">${escapeXml(chart.yLabel)}</text>`,
  );
  chart.groups.forEach((group, g) => {
    const barsWidth = chart.series.length * (bar + gapInGroup) - gapInGroup;
    const x0 = left + g * groupWidth + (groupWidth - barsWidth) / 2;
    chart.series.forEach((series, s) => {
      const value = series.values[g];
      if (value === null || value === undefined) return;
      const x = x0 + s * (bar + gapInGroup);
      const clipped = value > chart.yMax;
      parts.push(
        `<rect x="${x}" y="${y(value)}" width="${bar}" height="${(top + plotHeight - y(value)).toFixed(1)}" fill="${palette[s % palette.length]}" stroke="black" stroke-width="0.6"><title>${escapeXml(`${group}, ${series.label}: ${value.toFixed(3)}`)}</title></rect>`,
      );
      const labelY = clipped ? top - 3 : y(value) - 3;
      parts.push(`<text x="${x + bar / 2}" y="${labelY}" font-size="7.5" text-anchor="middle">${value.toFixed(1)}${clipped ? '↑' : ''}</text>`);
    });
    const cx = left + g * groupWidth + groupWidth / 2;
    const split = group.indexOf(' (');
    const [name, detail] = split < 0 ? [group, ''] : [group.slice(0, split), group.slice(split + 1)];
    parts.push(`<text x="${cx}" y="${top + plotHeight + 15}" font-size="10.5" text-anchor="middle">${escapeXml(name)}</text>`);
    if (detail !== '') parts.push(`<text x="${cx}" y="${top + plotHeight + 28}" font-size="9" text-anchor="middle" fill="#444">${escapeXml(detail)}</text>`);
  });
  chart.series.forEach((series, s) => {
    const lx = left + plotWidth + 20;
    const ly = top + 8 + s * 17;
    parts.push(`<rect x="${lx}" y="${ly - 8}" width="12" height="10" fill="${palette[s % palette.length]}" stroke="black" stroke-width="0.6"/>`);
    parts.push(`<text x="${lx + 18}" y="${ly + 1}" font-size="11">${escapeXml(series.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
