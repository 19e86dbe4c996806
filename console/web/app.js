// The console's router: #/<screen>?<params>. A screen is an async render(view, params)
// into its own element; screens with live data are re-rendered every 2 s (polling; the
// forms sit outside the re-rendered element, so typing is not lost).
import * as ct from './screens_cluster_topics.js';
import * as gm from './screens_groups_messages.js';
import { h, errorBox } from './dom.js';
import { get } from './api.js';
import { settings } from './settings.js';

const POLL_MS = 2000;
const main = document.getElementById('main');
const status = document.getElementById('status');
let timer = null;
let generation = 0;

function route() {
  const [path, query] = (location.hash.slice(2) || 'cluster').split('?');
  return { screen: path, params: new URLSearchParams(query || '') };
}

async function show() {
  clearInterval(timer);
  const gen = ++generation;
  const { screen, params } = route();
  document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active',
    a.dataset.screen === screen || a.dataset.screen + 's' === screen || (screen === 'message' && a.dataset.screen === 'messages')));
  const view = h('div', { testid: `screen-${screen}` });
  let render = null; let live = true; const before = [];
  switch (screen) {
    case 'cluster': render = () => ct.cluster(view); break;
    case 'topics': render = () => ct.topics(view, refresh); before.push(settings.readOnly ? ct.readOnlyNote('topics cannot be created or deleted') : ct.topicsForm(() => refresh())); break;
    case 'topic': render = () => ct.topic(view, params); break;
    case 'groups': render = () => gm.groups(view); break;
    case 'group': render = () => gm.group(view, params); before.push(gm.resetForm(params)); break;
    case 'messages': live = false; before.push(...gm.messagesForms(view)); break;
    case 'message': live = false; render = () => gm.message(view, params); break;
    default: view.replaceChildren(errorBox(new Error(`no screen "${screen}"`))); live = false;
  }
  main.replaceChildren(...before, view);
  async function refresh() {
    if (!render || gen !== generation) return;
    try {
      await render();
      status.textContent = `updated ${new Date().toLocaleTimeString()}`;
    } catch (err) {
      if (gen === generation) view.replaceChildren(errorBox(err));
    }
  }
  await refresh();
  if (live) timer = setInterval(refresh, POLL_MS);
}

// Read once: whether this console is read-only (then no changing control is shown).
async function start() {
  try {
    Object.assign(settings, await get('/api/console'));
  } catch (err) {
    status.textContent = `console settings not read: ${err.message}`;
  }
  document.getElementById('mode').hidden = !settings.readOnly;
  document.body.classList.toggle('read-only', settings.readOnly);
  window.addEventListener('hashchange', show);
  show();
}
start();
