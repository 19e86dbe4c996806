// The Cluster and Topics screens.
import { get, post } from './api.js';
import { lineChart, fmt } from './chart.js';
import { h, table, num, bytes, time, errorBox, card } from './dom.js';
import { settings } from './settings.js';

// In place of a form the read-only console leaves out.
export function readOnlyNote(what) {
  return h('p', { class: 'muted', testid: 'read-only-note' }, `read-only console (--console-read-only): ${what} here`);
}

// One row per broker the name server lists: the in-process one (read directly) and the
// others (their GET_BROKER_RUNTIME_INFO and GET_BROKER_CONFIG, asked in the background).
// Health is judged alike for all (as `rocketstore cluster status`); not writable says why.
function brokerRow(x) {
  const disk = x.disk.usedRatio !== undefined ? `${(x.disk.usedRatio * 100).toFixed(1)}%` : (x.disk.error || '-');
  const healthCls = x.health.writable === true ? 'ok' : (x.health.state === 'asking' ? 'muted' : 'bad');
  return h('tr', { 'data-broker': x.address, 'data-state': x.state },
    h('td', {}, x.brokerName + (x.local ? ' (this process)' : '')), num(x.brokerId), h('td', {}, x.cluster), h('td', {}, x.address),
    h('td', { testid: 'broker-version' }, x.version || '-'),
    h('td', { class: healthCls, testid: 'broker-health', title: x.health.reason || '' },
      x.health.state + (x.health.reason ? `: ${x.health.reason}` : '')),
    h('td', {}, disk), num(x.rates.putTps !== undefined ? fmt(x.rates.putTps) : '-'), num(x.rates.getTps !== undefined ? fmt(x.rates.getTps) : '-'),
    h('td', {}, x.commitLog.bytes !== undefined ? bytes(x.commitLog.bytes) : '-'),
    h('td', {}, x.local ? 'now' : (x.answeredMs > 0 ? time(x.answeredMs) : 'never')));
}

export async function cluster(view) {
  const c = await get('/api/cluster');
  const b = c.brokers.find(x => x.local);
  const d = b.disk;
  const used = d.usedRatio !== undefined ? (d.usedRatio * 100).toFixed(1) + '%' : d.error;
  const disc = c.discovery;
  view.replaceChildren(
    h('h2', {}, `Cluster ${c.clusterName}`),
    h('div', { class: 'cards' },
      card('broker version', b.version || '-', 'version'),
      card('health', b.health.writable ? 'writable' : `NOT writable: ${b.health.reason}`, 'health', b.health.writable ? 'ok' : 'bad'),
      card('disk used', `${used} of ${bytes(d.totalBytes || 0)}`, 'disk-used'),
      card('watermarks', `clean ${d.diskMaxUsedSpaceRatio}% / force ${d.diskSpaceCleanForciblyRatio}% / stop ${d.diskSpaceWarningLevelRatio}%`, 'watermarks'),
      card('commit log', bytes(d.commitLogBytes), 'commitlog-bytes'),
      card('flush behind', bytes(b.commitLog.flushBehindBytes), 'flush-behind'),
      card('dispatch behind', bytes(b.commitLog.dispatchBehindBytes), 'dispatch-behind'),
      card('put msg/s', fmt(b.rates.putTps), 'put-tps'),
      card('consumed msg/s', fmt(b.rates.getTps), 'get-tps')),
    h('h3', {}, `Brokers (${c.brokers.length})`),
    disc.error ? h('div', { class: 'error', testid: 'discovery-error' }, disc.error) : '',
    table(['broker', 'id', 'cluster', 'address', 'version', 'health', 'disk used', 'put msg/s', 'consumed msg/s', 'commit log', 'as of'],
      c.brokers.map(brokerRow), 'brokers-table'),
    h('p', { class: 'muted' }, `this process: store ${b.storeDir}, ${b.flushDiskType}, up ${b.runtime || '-'}; name server ${c.namesrv}; ` +
      `other brokers from GET_BROKER_CLUSTER_INFO (${disc.namesrv || 'asking'}) and their GET_BROKER_RUNTIME_INFO / GET_BROKER_CONFIG; console ${c.version}`),
    lineChart([{ name: 'put msg/s', points: b.rates.putSeries }, { name: 'consumed msg/s', points: b.rates.getSeries }],
      { label: 'messages per second (this broker)', width: 640 }),
    h('p', { class: 'muted' }, `put and consumed = messages sent and pulled as the broker counts them (broker stats); updated ${time(c.nowMs)}`));
}

export function topicsForm(onDone) {
  const msg = h('span', { testid: 'create-topic-result' });
  const name = h('input', { name: 'topic', testid: 'new-topic-name', required: true, pattern: '[A-Za-z0-9_%|\\-]{1,127}' });
  const queues = h('input', { name: 'queues', type: 'number', min: 1, max: 1024, value: 4, testid: 'new-topic-queues' });
  return h('form', { onsubmit: async e => {
    e.preventDefault();
    try {
      const r = await post('/api/topics', { topic: name.value, readQueueNums: queues.value, writeQueueNums: queues.value });
      msg.textContent = `created ${r.topic} (${r.writeQueueNums} queues)`;
      msg.className = 'ok';
      onDone();
    } catch (err) { msg.textContent = err.message; msg.className = 'bad'; }
  } }, h('label', {}, 'new topic', name), h('label', {}, 'queues', queues),
  h('button', { type: 'submit', testid: 'create-topic' }, 'Create'), ' ', msg);
}

export async function topics(view, refresh) {
  const t = await get('/api/topics');
  const rows = t.topics.map(x => h('tr', { 'data-topic': x.topic },
    h('td', {}, h('a', { href: `#/topic?topic=${encodeURIComponent(x.topic)}` }, x.topic)),
    h('td', {}, x.kind + (x.system ? ' (system)' : '')),
    num(x.readQueueNums), num(x.writeQueueNums), h('td', {}, x.perm), num(x.messages), num(fmt(x.putTps)),
    h('td', {}, x.system || settings.readOnly ? '' : h('button', { testid: 'delete-topic', onclick: async () => {
      if (!confirm(`Delete topic ${x.topic}?`)) return;
      try { await post('/api/topics/delete', { topic: x.topic }); refresh(); } catch (err) { alert(err.message); }
    } }, 'Delete'))));
  view.replaceChildren(h('h2', {}, `Topics (${t.topics.length})`),
    table(['topic', 'kind', 'read q', 'write q', 'perm', 'messages', 'put msg/s', ''], rows, 'topics-table'));
}

export async function topic(view, params) {
  const t = await get('/api/topic', { topic: params.get('topic') });
  view.replaceChildren(h('h2', {}, `Topic ${t.topic}`),
    h('p', {}, `queues ${t.readQueueNums} read / ${t.writeQueueNums} write, perm ${t.perm}, consumed by: ${t.consumerGroups.join(', ') || 'nobody online'}`),
    lineChart([{ name: 'put msg/s', points: t.putSeries }, { name: 'consumed msg/s', points: t.getSeries }], { label: 'rates', width: 640 }),
    table(['queue', 'min offset', 'max offset', 'last stored'], t.queues.map(q => h('tr', {},
      num(q.queueId), num(q.minOffset), num(q.maxOffset, 'max-offset'), h('td', {}, time(q.lastStoreTime)))), 'queues-table'));
}

export { errorBox };
