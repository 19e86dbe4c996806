// DOM helpers: elements are built with textContent (never innerHTML), so message bodies,
// keys and topic names cannot inject markup.
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'testid') e.setAttribute('data-testid', v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function table(headers, rows, testid) {
  return h('table', { testid },
    h('thead', {}, h('tr', {}, headers.map(t => h('th', {}, t)))),
    h('tbody', {}, rows));
}

export function num(v, testid) { return h('td', { class: 'num', testid }, String(v)); }

export function time(ms) { return ms > 0 ? new Date(ms).toISOString().replace('T', ' ').replace('Z', '') : '-'; }

export function bytes(n) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0; let v = n;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return `${i ? v.toFixed(1) : v} ${u[i]}`;
}

export function errorBox(err) { return h('div', { class: 'error', testid: 'error' }, err.message || String(err)); }

export function card(label, value, testid, cls) {
  return h('div', { class: 'card' }, h('div', { class: 'muted' }, label), h('div', { class: `v ${cls || ''}`, testid }, value));
}
