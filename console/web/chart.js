// A line chart drawn as inline SVG (no chart library, no build step): series of
// [timeMs, value] pairs, newest right.
const NS = 'http://www.w3.org/2000/svg';

export function lineChart(series, { width = 420, height = 120, label = '', unit = '' } = {}) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  const pad = 24;
  const pts = series.flatMap(s => s.points);
  const maxV = Math.max(1, ...pts.map(p => p[1]));
  const minT = Math.min(...pts.map(p => p[0]), Date.now() - 60000);
  const maxT = Math.max(...pts.map(p => p[0]), minT + 1);
  const x = t => pad + (t - minT) / (maxT - minT) * (width - 2 * pad);
  const y = v => height - pad + 6 - v / maxV * (height - 2 * pad);
  const text = (tx, ty, s) => {
    const e = document.createElementNS(NS, 'text');
    e.setAttribute('x', tx); e.setAttribute('y', ty); e.setAttribute('font-size', '10');
    e.setAttribute('fill', '#52606d'); e.textContent = s; svg.appendChild(e);
  };
  text(pad, 12, `${label} (max ${fmt(maxV)}${unit})`);
  const colors = ['#1565c0', '#c62828', '#2f8132'];
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const path = document.createElementNS(NS, 'polyline');
    path.setAttribute('fill', 'none');
    path.setAttribute('stroke', colors[i % colors.length]);
    path.setAttribute('stroke-width', '1.5');
    path.setAttribute('points', s.points.map(p => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' '));
    svg.appendChild(path);
    text(width - pad - 90, 12 + 11 * i, s.name);
  });
  if (pts.length === 0) text(pad, height / 2, 'no samples yet');
  return svg;
}

export function fmt(v) {
  if (Math.abs(v) >= 1e9) return (v / 1e9).toFixed(1) + 'G';
  if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + 'k';
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
