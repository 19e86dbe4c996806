// The Consumer groups and Messages screens.
import { get, post } from './api.js';
import { lineChart } from './chart.js';
import { h, table, num, time } from './dom.js';
import { settings } from './settings.js';

export async function groups(view) {
  const g = await get('/api/groups');
  view.replaceChildren(h('h2', {}, `Consumer groups (${g.groups.length})`),
    table(['group', 'members', 'model', 'lag', 'retry', 'DLQ'], g.groups.map(x => h('tr', { 'data-group': x.group },
      h('td', {}, h('a', { href: `#/group?group=${encodeURIComponent(x.group)}` }, x.group)),
      num(x.members), h('td', {}, x.messageModel || '-'), num(x.lag, 'lag'), num(x.retryMessages), num(x.dlqMessages))), 'groups-table'));
}

export async function group(view, params) {
  const g = await get('/api/group', { group: params.get('group') });
  view.replaceChildren(h('h2', {}, `Consumer group ${g.group}`),
    h('p', {}, 'total lag ', h('strong', { testid: 'group-lag' }, String(g.diffTotal)),
      `; retry ${g.retryMessages} (${g.retryTopic}), DLQ ${g.dlqMessages} (${g.dlqTopic})`),
    lineChart([{ name: 'lag', points: g.lagSeries }], { label: 'lag (messages)', width: 640 }),
    h('h3', {}, 'Members'),
    g.members.length ? table(['client id', 'language', 'version', 'last heartbeat'], g.members.map(m => h('tr', { 'data-client': m.clientId },
      h('td', {}, m.clientId), num(m.language), num(m.version), h('td', {}, time(m.lastHeartbeatMs)))), 'members-table') : h('p', { class: 'muted' }, 'no member online'),
    h('h3', {}, 'Offsets'),
    table(['topic', 'queue', 'broker offset', 'consumer offset', 'lag', 'last consumed message stored'], g.queues.map(q => h('tr', {},
      h('td', {}, q.topic), num(q.queueId), num(q.brokerOffset), num(q.consumerOffset), num(q.lag), h('td', {}, time(q.lastTimestamp)))), 'offsets-table'));
}

export function resetForm(params) {
  const topicIn = h('input', { name: 'topic', testid: 'reset-topic' });
  const tsIn = h('input', { name: 'timestamp', placeholder: 'YYYY-MM-DDTHH:MM:SS (UTC) or ms', testid: 'reset-time' });
  const out = h('div', { testid: 'reset-result' });
  const run = async dryRun => {
    try {
      const r = await post('/api/groups/reset-offset', { group: params.get('group'), topic: topicIn.value, timestamp: tsIn.value, dryRun });
      const who = r.membersOnline ? `${r.membersOnline} member(s) online` : 'no member online';
      out.replaceChildren(h('p', { testid: 'reset-summary' }, dryRun ? `preview (nothing changed; ${who}):`
        : (r.pushedToMembers ? `offsets reset: the ${who} were told and move to them` : `offsets reset: committed (${who})`)),
        table(['queue', 'current', 'new'], r.queues.map(q => h('tr', {}, num(q.queueId), num(q.currentOffset), num(q.newOffset))), 'reset-table'));
    } catch (err) { out.replaceChildren(h('div', { class: 'error' }, err.message)); }
  };
  return h('form', { onsubmit: e => e.preventDefault() }, h('strong', {}, 'Reset offset by time '),
    h('label', {}, 'topic', topicIn), h('label', {}, 'time', tsIn),
    h('button', { type: 'button', onclick: () => run(true), testid: 'reset-preview' }, 'Preview'), ' ',
    // Read-only: the preview (a dry run changes nothing) stays, the reset goes.
    settings.readOnly ? h('span', { class: 'muted', testid: 'read-only-note' }, 'read-only console: preview only')
      : h('button', { type: 'button', onclick: () => run(false), testid: 'reset-apply' }, 'Reset'), out);
}

function resultsTable(list) {
  return table(['offset', 'topic', 'queue', 'queue offset', 'tags', 'keys', 'stored', 'size'], list.map(m => h('tr', {},
    h('td', {}, h('a', { href: `#/message?offset=${m.offset}`, testid: 'result-link' }, String(m.offset))),
    h('td', {}, m.topic), num(m.queueId), num(m.queueOffset), h('td', {}, m.tags), h('td', {}, m.keys),
    h('td', {}, time(m.storeTimestamp)), num(m.bodySize))), 'results-table');
}

export function messagesForms(results) {
  const show = async (path, p) => {
    try {
      const r = await get(path, p);
      results.replaceChildren(h('p', {}, `${r.messages.length} found`), resultsTable(r.messages));
    } catch (err) { results.replaceChildren(h('div', { class: 'error', testid: 'error' }, err.message)); }
  };
  const kt = h('input', { testid: 'key-topic' }); const kk = h('input', { testid: 'key-key' });
  const id = h('input', { testid: 'msgid', size: 40 });
  const tt = h('input', { testid: 'time-topic' }); const tb = h('input', { testid: 'time-begin', placeholder: 'YYYY-MM-DDTHH:MM' });
  const te = h('input', { testid: 'time-end', placeholder: '(now)' });
  return [
    h('form', { onsubmit: e => { e.preventDefault(); show('/api/messages/by-key', { topic: kt.value, key: kk.value }); } },
      h('strong', {}, 'By key '), h('label', {}, 'topic', kt), h('label', {}, 'key', kk), h('button', { testid: 'search-key' }, 'Find')),
    h('form', { onsubmit: e => { e.preventDefault(); show('/api/messages/by-id', { msgId: id.value }); } },
      h('strong', {}, 'By message id '), id, h('button', { testid: 'search-id' }, 'Find')),
    h('form', { onsubmit: e => { e.preventDefault(); const p = { topic: tt.value, begin: tb.value }; if (te.value) p.end = te.value; show('/api/messages/by-time', p); } },
      h('strong', {}, 'By time range '), h('label', {}, 'topic', tt), h('label', {}, 'from', tb), h('label', {}, 'to', te), h('button', { testid: 'search-time' }, 'Find')),
  ];
}

function indexSteps(entry) {
  const rows = entry.steps.map(s => {
    if (s.type === 'key') return h('tr', {}, h('td', { colspan: 6 }, `key ${s.key}: hash ${s.keyHash}, slot ${s.slot} of ${s.hashSlotNum}`));
    if (s.type === 'indexFile') return h('tr', {}, h('td', { colspan: 6 }, `index file ${s.file}: slot at byte ${s.slotPosition} holds entry ${s.slotValue}` + (s.timeMatched ? '' : ' (outside time range)')));
    if (s.type !== 'entry') {  // the record a candidate offset names, checked for topic and key
      return h('tr', {}, h('td', { colspan: 6 }, `record at ${s.physicalOffset}: topic ${s.topic}, queue ${s.queueId}, queue offset ${s.queueOffset} — topic and key really match`));
    }
    return h('tr', {}, num(s.entryNumber), num(s.keyHash), num(s.physicalOffset), num(s.timeDiff), num(s.prevIndex), h('td', {}, s.matched ? 'match' : 'other'));
  });
  return [h('h4', {}, `index: key "${entry.key}"`), table(['entry', 'key hash', 'phy offset', 'time diff', 'prev entry', ''], rows, 'index-table'),
    entry.error ? h('div', { class: 'error' }, entry.error) : null];
}

export async function message(view, params) {
  const d = await get('/api/message', { offset: params.get('offset') });
  const m = d.message; const w = d.where;
  const body = h('pre', { testid: 'body' }, d.bodyIsText ? d.bodyText : d.bodyHex);
  // A body that is not UTF-8 opens in hex; as text its other bytes show as U+FFFD.
  const notice = d.bodyIsText ? null : h('p', { class: 'muted', testid: 'body-notice' },
    `not valid UTF-8: as text, ${d.bodyReplacedBytes} byte(s) show as \uFFFD; hex shows every byte` + (d.bodyTruncated ? ' (first 64 KiB)' : ''));
  const asJson = () => { try { body.textContent = JSON.stringify(JSON.parse(d.bodyText), null, 2); } catch { body.textContent = '(not JSON)'; } };
  const out = h('span', { testid: 'resend-result' });
  // h() flattens arrays and skips null; replaceChildren would print them.
  view.replaceChildren(h('div', {}, h('h2', {}, `Message at commit-log offset ${m.offset}`),
    table(['field', 'value'], [
      ['msgId (offset)', m.msgId], ['UNIQ_KEY', m.uniqKey], ['topic', m.topic], ['queue', m.queueId], ['queue offset', m.queueOffset],
      ['tags', m.tags], ['keys', m.keys], ['born', `${time(d.bornTimestamp)} from ${d.bornHost}`], ['stored', `${time(m.storeTimestamp)} on ${d.storeHost}`],
      ['reconsume times', d.reconsumeTimes], ['body', `${m.bodySize} bytes, CRC ${d.bodyCrc}`]].map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, String(v)))), 'message-table'),
    h('h3', {}, 'Where it lives'),
    table(['store file', 'file', 'position', 'detail'], [
      h('tr', {}, h('td', {}, 'commit log segment'), h('td', { testid: 'where-segment' }, w.commitLog.file),
        num(w.commitLog.position, 'where-position'), h('td', {}, `${w.commitLog.size} bytes; ${w.commitLog.flushed ? 'flushed to disk' : 'not yet flushed'}`)),
      h('tr', {}, h('td', {}, 'consume queue unit'), h('td', { testid: 'where-cq' }, w.consumeQueue.file), num(w.consumeQueue.position),
        h('td', {}, `unit ${w.consumeQueue.unit} of ${w.consumeQueue.topic}/${w.consumeQueue.queueId}: ` +
          (w.consumeQueue.unitPointsHere ? `points here (tags code ${w.consumeQueue.unitTagsCode})` : (w.consumeQueue.unitError || 'points elsewhere')))),
    ], 'where-table'),
    w.indexEnabled ? w.index.flatMap(indexSteps) : h('p', {}, 'index disabled (messageIndexEnable=false)'),
    h('h3', {}, 'Properties'),
    table(['name', 'value'], Object.entries(d.properties).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, v))), 'properties-table'),
    h('h3', {}, 'Body ', h('button', { testid: 'body-text', onclick: () => { body.textContent = d.bodyText; } }, 'text'), h('button', { testid: 'body-hex', onclick: () => { body.textContent = d.bodyHex; } }, 'hex'),
      h('button', { onclick: asJson }, 'JSON')), notice, body,
    d.dlq && settings.readOnly ? h('p', { class: 'muted', testid: 'read-only-note' }, 'read-only console: a DLQ message cannot be resent here') : null,
    d.dlq && !settings.readOnly ? h('p', {}, h('button', { testid: 'resend', onclick: async () => {
      try { const r = await post('/api/messages/resend-dlq', { offset: m.offset }); out.textContent = `resent to ${r.topic} queue ${r.queueId} (offset ${r.offset})`; } catch (err) { out.textContent = err.message; }
    } }, 'Resend to its topic'), ' ', out) : null));
}
