'use strict';
// Browser test of the web console (ctest console_browser, labels integration;browser):
// a real `rocketstore serve` (started by run_browser.sh) gets data over the remoting
// protocol, then Debian's chromium, driven by playwright-core, checks that
//   1. each screen (Cluster, Topics, Consumer groups, Messages) loads with that data;
//   2. a search by key finds the message, and its detail shows the segment file and the
//      position that the send's offset msgId names;
//   3. a topic created in the UI appears in GET_ROUTEINFO_BY_TOPIC (105) at the name server;
//      deleted in the UI, it leaves the list and the routes;
//   4. the group's lag on screen equals the admin protocol's: GET_CONSUME_STATS (208) when
//      the broker answers it, else QUERY_CONSUMER_OFFSET (14) + GET_MAX_OFFSET (30);
//   5. bad API input answers 4xx with a JSON error; cross-site POSTs are refused;
//   4b. the topic detail screen and its chart load, and messages produced while it is open
//      show up without a reload (live updates);
//   4c. a consumer online (HEART_BEAT over remoting) is listed as a member; reset by time
//      with it online: the preview tells nobody, the reset pushes 220 to it;
//   4d. a DLQ message is found by time range and resent to its topic from the page;
//   4e. a message is found by its offset message id;
//   6. read-only mode (a second serve with --console-read-only): a "read-only" badge, no
//      create / delete / reset / resend control (the main console has them), the preview
//      still works, and a POST is refused (403).
// Every request the pages make must stay on the consoles' origins (page.route fails any
// other and the test checks none happened). A failed check stops the test at once and
// saves a screenshot of the page it failed on.
// Env: CONSOLE_URL, CONSOLE_RO_URL and RO_BROKER_ADDR (the read-only serve), NAMESRV, BROKER_ADDR,
// ARTIFACTS (failure screenshots), SHOTS (optional: where to save the screens for
// docs/images). Exit 0 on success.
const { chromium } = require('playwright-core');
const { Remoting } = require('./remoting');
const path = require('path');
const fs = require('fs');

const URL_ = process.env.CONSOLE_URL;
const RUN = `${process.pid}`;
const TOPIC = `ConsoleTopic_${RUN}`;
const GROUP = `ConsoleGroup_${RUN}`;
const ARTIFACTS = process.env.ARTIFACTS || '.';
const SHOTS = process.env.SHOTS || '';
let page = null;
let step = 'start';

// A failed check throws: the test stops at once, and main's catch saves a screenshot of
// the page as it was when the check failed (then exits 1). fail() is only called there.
class CheckFailed extends Error {}
let failing = false;
async function fail(msg) {
  if (failing) return; failing = true;
  console.error(`FAIL (${step}): ${msg}`);
  if (page) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `failure-${step}.png`);
    try { await page.screenshot({ path: file, fullPage: true }); console.error(`screenshot: ${file} (${page.url()})`); } catch (e) { console.error(`no screenshot: ${e.message}`); }
  }
  process.exit(1);
}
function check(cond, msg) { if (!cond) throw new CheckFailed(msg); }
// Waits for a selector on the current page; a timeout is a failed check naming `what`.
async function waitFor(selector, what, timeout = 10000) {
  try { return await page.waitForSelector(selector, { timeout }); } catch (e) { throw new CheckFailed(`${what} (${selector} not shown within ${timeout} ms)`); }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

function props(map) { return Object.entries(map).map(([k, v]) => `${k}\u0001${v}\u0002`).join(''); }

async function produce(broker, n, topic = TOPIC, keyPrefix = 'order') {
  const sent = [];
  for (let i = 0; i < n; i++) {
    const r = await broker.request(10, {
      producerGroup: `ConsoleProducer_${RUN}`, topic, defaultTopic: 'TBW102', defaultTopicQueueNums: 4,
      queueId: i % 4, sysFlag: 0, bornTimestamp: Date.now(), flag: 0,
      properties: props({ KEYS: `${keyPrefix}-${i}`, TAGS: 'TagA', WAIT: 'true' }), reconsumeTimes: 0, unitMode: false, batch: false,
    }, Buffer.from(JSON.stringify({ order: i, item: 'console test' })));
    check(r.code === 0, `send ${i} to ${topic}: code ${r.code} ${r.remark}`);
    sent.push({ msgId: r.extFields.msgId, queueId: Number(r.extFields.queueId), queueOffset: Number(r.extFields.queueOffset) });
  }
  return sent;
}

async function commitOffset(broker, group, topic, queueId, offset) {
  const r = await broker.request(15, { consumerGroup: group, topic, queueId, commitOffset: offset });
  check(r.code === 0, `commit offset ${group} ${topic}/${queueId}: code ${r.code} ${r.remark}`);
}

// CONSUMER_SEND_MSG_BACK (36) with delayLevel -1: the message goes to %DLQ%<group> at once.
async function sendToDlq(broker, group, sent, topic) {
  const r = await broker.request(36, { offset: parseInt(sent.msgId.slice(-16), 16), group, delayLevel: -1,
    originMsgId: sent.msgId, originTopic: topic, unitMode: false, maxReconsumeTimes: 16 });
  check(r.code === 0, `send back to DLQ: code ${r.code} ${r.remark}`);
}

// The DLQ message of `group`, found through the console's by-time search.
async function waitForDlq(base, group) {
  for (let i = 0; i < 50; i++) {
    const r = await (await fetch(`${base}/api/messages/by-time?topic=${encodeURIComponent(`%DLQ%${group}`)}&begin=0`)).json();
    if (r.messages && r.messages.length) return r.messages[0];
    await sleep(100);
  }
  throw new CheckFailed(`no message in %DLQ%${group}`);
}

async function adminLag(broker) {
  const stats = await broker.request(208, { consumerGroup: GROUP, topic: TOPIC });
  if (stats.code === 0) {
    const text = stats.body.toString('utf8');
    let total = 0; const re = /"brokerOffset":(\d+),"consumerOffset":(\d+)/g; let m;
    while ((m = re.exec(text))) total += Number(m[1]) - Number(m[2]);
    return { lag: total, via: 'GET_CONSUME_STATS (208)' };
  }
  let total = 0;
  for (let q = 0; q < 4; q++) {
    const max = await broker.request(30, { topic: TOPIC, queueId: q });
    const off = await broker.request(14, { consumerGroup: GROUP, topic: TOPIC, queueId: q });
    const committed = off.code === 0 ? Math.max(0, Number(off.extFields.offset)) : 0;
    total += Number(max.extFields.offset) - committed;
  }
  return { lag: total, via: `QUERY_CONSUMER_OFFSET (14) + GET_MAX_OFFSET (30); 208 answered ${stats.code}` };
}

async function screen(hash, selector, shot) {
  step = `screen-${hash.replace(/[^a-z]/g, '')}`;
  await page.goto(`${URL_}#/${hash}`);
  await waitFor(selector, `${hash} did not load`);
  const err = await page.$('[data-testid=error]');
  check(!err, `${hash} shows an error: ${err && await err.textContent()}`);
  if (SHOTS && shot) await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
}

async function main() {
  const broker = new Remoting(process.env.BROKER_ADDR); await broker.connect();
  const namesrv = new Remoting(process.env.NAMESRV); await namesrv.connect();
  step = 'data';
  const sent = await produce(broker, 20);
  for (const [q, off] of [[0, 2], [1, 1], [2, 5], [3, 0]]) {
    const r = await broker.request(15, { consumerGroup: GROUP, topic: TOPIC, queueId: q, commitOffset: off });
    check(r.code === 0, `commit offset: code ${r.code} ${r.remark}`);
  }
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', e => console.error(`page error: ${e.message}`));
  // No external network: every request the pages make must go to a console's own origin;
  // anything else is recorded and fails (and the test fails at the end).
  const RO = (process.env.CONSOLE_RO_URL || '').replace(/\/$/, '');
  const origins = new Set([new URL(URL_).origin].concat(RO ? [new URL(RO).origin] : []));
  const external = [];
  await page.route('**/*', route => {
    const url = route.request().url();
    let origin = '';
    try { origin = new URL(url).origin; } catch (e) { /* not a URL: external */ }
    if (origins.has(origin)) return route.continue();
    external.push(url);
    return route.abort();
  });

  // 1. every screen loads with the data
  await screen('cluster', '[data-testid=version]', 'console-cluster.png');
  check((await page.textContent('[data-testid=health]')) === 'writable', 'health is not "writable"');
  // The brokers table judges every broker alike (client::AssessBrokerHealth): this one is "ok".
  const rowHealth = await page.textContent('[data-testid=broker-health]');
  check(rowHealth === 'ok', `the broker row's health is not "ok": ${rowHealth}`);
  // The guard works: a request elsewhere from the page is caught (then forgotten).
  step = 'network-guard';
  await page.evaluate(() => fetch('http://192.0.2.1/probe').catch(() => null));
  check(external.length === 1 && external[0].startsWith('http://192.0.2.1/'), `network guard did not see the probe: ${JSON.stringify(external)}`);
  external.length = 0;
  await screen('topics', `tr[data-topic="${TOPIC}"]`, 'console-topics.png');
  await screen('groups', `tr[data-group="${GROUP}"]`, 'console-groups.png');
  await screen('messages', '[data-testid=key-topic]', null);

  // 2. search by key -> message -> where it lives
  step = 'search-by-key';
  const target = sent[7];
  await page.fill('[data-testid=key-topic]', TOPIC);
  await page.fill('[data-testid=key-key]', 'order-7');
  await page.click('[data-testid=search-key]');
  await waitFor('[data-testid=result-link]', 'no result for order-7');
  const links = await page.$$('[data-testid=result-link]');
  check(links.length === 1, `expected 1 result, got ${links.length}`);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-messages.png'), fullPage: true });
  await links[0].click();
  step = 'where-it-lives';
  await waitFor('[data-testid=where-segment]', 'no where-it-lives');
  const phy = parseInt(target.msgId.slice(-16), 16);
  const seg = await page.textContent('[data-testid=where-segment]');
  const pos = Number(await page.textContent('[data-testid=where-position]'));
  const expectSeg = String(phy - (phy % (1 << 30))).padStart(20, '0');
  check(seg.endsWith(`/commitlog/${expectSeg}`), `segment ${seg}, expected .../commitlog/${expectSeg}`);
  check(pos === phy % (1 << 30), `position ${pos}, expected ${phy % (1 << 30)}`);
  check((await page.textContent('[data-testid=where-cq]')).includes(`/consumequeue/${TOPIC}/${target.queueId}/`), 'consume-queue file');
  check((await page.$$('[data-testid=index-table]')).length >= 1, 'no index walk shown');
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-message-detail.png'), fullPage: true });
  console.log(`ok: order-7 found at ${seg} position ${pos}`);

  // 3. a topic created in the UI reaches the name server's routes
  step = 'create-topic';
  const uiTopic = `UiTopic_${RUN}`;
  await page.goto(`${URL_}#/topics`);
  await waitFor('[data-testid=new-topic-name]', 'no create-topic form');
  await page.fill('[data-testid=new-topic-name]', uiTopic);
  await page.fill('[data-testid=new-topic-queues]', '3');
  await page.click('[data-testid=create-topic]');
  await waitFor(`tr[data-topic="${uiTopic}"]`, 'created topic not listed');
  let route = null;
  for (let i = 0; i < 50 && !route; i++) {
    const r = await namesrv.request(105, { topic: uiTopic });
    if (r.code === 0) route = JSON.parse(r.body.toString('utf8')); else await sleep(200);
  }
  check(route, `GET_ROUTEINFO_BY_TOPIC never found ${uiTopic}`);
  check(route.queueDatas.length === 1 && route.queueDatas[0].writeQueueNums === 3, `route ${JSON.stringify(route.queueDatas)}`);
  console.log(`ok: ${uiTopic} in GET_ROUTEINFO_BY_TOPIC with 3 write queues`);

  // 3b. deleted in the UI: gone from the list at once, and from GET_ROUTEINFO_BY_TOPIC
  // after the registration round the delete requested (the answer does not wait for it)
  step = 'delete-topic';
  page.once('dialog', d => d.accept());
  await page.click(`tr[data-topic="${uiTopic}"] [data-testid=delete-topic]`);
  try {
    await page.waitForSelector(`tr[data-topic="${uiTopic}"]`, { state: 'detached', timeout: 10000 });
  } catch (e) { throw new CheckFailed(`deleted topic ${uiTopic} still listed after 10 s`); }
  let gone = false;
  for (let i = 0; i < 50 && !gone; i++) {
    const r = await namesrv.request(105, { topic: uiTopic });
    if (r.code !== 0) gone = true; else await sleep(200);
  }
  check(gone, `GET_ROUTEINFO_BY_TOPIC still finds ${uiTopic} 10 s after its delete`);
  console.log(`ok: ${uiTopic} deleted in the UI and gone from GET_ROUTEINFO_BY_TOPIC`);

  // 4. the group's lag is the admin protocol's
  step = 'group-lag';
  await page.goto(`${URL_}#/group?group=${GROUP}`);
  await waitFor('[data-testid=group-lag]', 'no group lag');
  const shown = Number(await page.textContent('[data-testid=group-lag]'));
  const admin = await adminLag(broker);
  check(shown === admin.lag && shown === 20 - 8, `console lag ${shown}, admin ${admin.lag} (${admin.via}), expected 12`);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-group.png'), fullPage: true });
  console.log(`ok: lag ${shown} = ${admin.via}`);

  // 4b. the topic detail screen with its charts, and live updates: messages produced while
  // the page is open show up without a reload.
  step = 'topic-detail';
  await page.goto(`${URL_}#/topic?topic=${TOPIC}`);
  await waitFor('[data-testid=queues-table]', 'topic detail did not load');
  const maxOffsets = () => page.$$eval('[data-testid=max-offset]', cells => cells.map(c => Number(c.textContent)));
  const before = await maxOffsets();
  check(before.length === 4 && before.reduce((a, b) => a + b, 0) === 20, `topic detail max offsets ${before}, expected 4 queues holding 20`);
  check((await page.$$('svg.chart')).length === 1, 'no rate chart on the topic detail');
  await page.evaluate(() => { window.consoleTestSameDocument = true; });
  await produce(broker, 8, TOPIC, 'live');
  try {
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=max-offset]')]
      .reduce((a, c) => a + Number(c.textContent), 0) === 28, null, { timeout: 15000 });
  } catch (e) { throw new CheckFailed(`topic detail did not show the 8 new messages without a reload: ${await maxOffsets()}`); }
  check(await page.evaluate(() => window.consoleTestSameDocument === true), 'the page was reloaded to show the new messages');
  try {
    await page.waitForFunction(() => document.querySelectorAll('svg.chart polyline').length >= 1, null, { timeout: 10000 });
  } catch (e) { throw new CheckFailed('the rate chart has no line'); }
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-topic.png'), fullPage: true });
  console.log('ok: topic detail with chart; 8 new messages shown without a reload');

  // 4c. a consumer online is listed as a member; reset by time with it online: the preview
  // tells nobody, the reset is pushed to it (RESET_CONSUMER_CLIENT_OFFSET 220).
  step = 'members';
  const member = new Remoting(process.env.BROKER_ADDR); await member.connect();
  const clientId = `127.0.0.1@console-test-${RUN}`;
  const hb = await member.request(34, {}, Buffer.from(JSON.stringify({
    clientID: clientId, producerDataSet: [], consumerDataSet: [{
      groupName: GROUP, consumeType: 'CONSUME_PASSIVELY', messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET', unitMode: false,
      subscriptionDataSet: [{ classFilterMode: false, topic: TOPIC, subString: '*', tagsSet: [], codeSet: [], subVersion: Date.now(), expressionType: 'TAG' }],
    }],
  })));
  check(hb.code === 0, `heartbeat: code ${hb.code} ${hb.remark}`);
  await page.goto(`${URL_}#/group?group=${GROUP}`);
  await waitFor(`[data-testid=members-table] tr[data-client="${clientId}"]`, 'the consumer online is not listed as a member');
  step = 'reset-offset';
  await page.fill('[data-testid=reset-topic]', TOPIC);
  await page.fill('[data-testid=reset-time]', '0');
  await page.click('[data-testid=reset-preview]');
  await waitFor('[data-testid=reset-table]', 'no reset preview');
  const preview = await page.textContent('[data-testid=reset-summary]');
  check(preview.includes('preview (nothing changed; 1 member(s) online)'), `preview summary: ${preview}`);
  const newOffsets = await page.$$eval('[data-testid=reset-table] tbody tr', rows => rows.map(r => Number(r.children[2].textContent)));
  check(newOffsets.length === 4 && newOffsets.every(o => o === 0), `preview new offsets ${newOffsets}`);
  await sleep(300);
  check(!member.serverRequests.some(r => r.code === 220), 'the preview told the member to reset');
  await page.click('[data-testid=reset-apply]');
  try {
    await page.waitForFunction(() => /were told/.test((document.querySelector('[data-testid=reset-summary]') || {}).textContent || ''), null, { timeout: 10000 });
  } catch (e) { throw new CheckFailed(`reset summary: ${await page.textContent('[data-testid=reset-result]')}`); }
  let push = null;
  for (let i = 0; i < 50 && !push; i++) { push = member.serverRequests.find(r => r.code === 220); if (!push) await sleep(100); }
  check(push, 'the member online got no RESET_CONSUMER_CLIENT_OFFSET (220)');
  const pushed = [...push.body.toString('utf8').matchAll(/"queueId":(\d+),"topic":"([^"]+)"\}:(-?\d+)/g)]
    .filter(m => m[2] === TOPIC).map(m => Number(m[3]));
  check(push.extFields.group === GROUP && pushed.length === 4 && pushed.every(o => o === 0), `220 pushed ${push.body.toString('utf8')}`);
  member.close();
  console.log('ok: member listed; reset previewed, then pushed to it (220) with offset 0 on 4 queues');

  // 4d. a DLQ message found by time range and resent to its topic from the page.
  step = 'dlq-resend';
  await sendToDlq(broker, GROUP, sent[3], TOPIC);
  await page.goto(`${URL_}#/messages`);
  await waitFor('[data-testid=time-topic]', 'no time-range form');
  await page.fill('[data-testid=time-topic]', `%DLQ%${GROUP}`);
  await page.fill('[data-testid=time-begin]', '1970-01-01T00:00');
  let dlqLinks = [];
  for (let i = 0; i < 30 && dlqLinks.length === 0; i++) {
    await page.click('[data-testid=search-time]');
    await sleep(200);
    dlqLinks = await page.$$('[data-testid=result-link]');
  }
  check(dlqLinks.length === 1, `by time range in %DLQ%${GROUP}: ${dlqLinks.length} results`);
  await dlqLinks[0].click();
  await waitFor('[data-testid=resend]', 'no resend button on the DLQ message');
  await page.click('[data-testid=resend]');
  try {
    await page.waitForFunction(() => /^resent to /.test((document.querySelector('[data-testid=resend-result]') || {}).textContent || ''), null, { timeout: 10000 });
  } catch (e) { throw new CheckFailed(`resend: ${await page.textContent('[data-testid=resend-result]')}`); }
  const resent = (await page.textContent('[data-testid=resend-result]')).match(/^resent to (\S+) queue (\d+) \(offset (\d+)\)/);
  check(resent && resent[1] === TOPIC, `resend result: ${resent}`);
  await page.goto(`${URL_}#/message?offset=${resent[3]}`);
  await waitFor('[data-testid=message-table]', 'the resent message');
  const copy = await page.textContent('[data-testid=message-table]');
  check(copy.includes(TOPIC) && copy.includes('order-3'), `resent message: ${copy}`);
  console.log(`ok: DLQ message found by time range, resent to ${TOPIC} at offset ${resent[3]}`);

  // 4e. find by message id.
  step = 'find-by-id';
  await page.goto(`${URL_}#/messages`);
  await waitFor('[data-testid=msgid]', 'no message-id form');
  await page.fill('[data-testid=msgid]', sent[5].msgId);
  await page.click('[data-testid=search-id]');
  await waitFor('[data-testid=result-link]', 'no result by message id');
  const idLinks = await page.$$eval('[data-testid=result-link]', as => as.map(a => a.textContent));
  check(idLinks.length === 1 && Number(idLinks[0]) === parseInt(sent[5].msgId.slice(-16), 16), `by id: ${idLinks}`);
  console.log('ok: found by message id');

  // 5. bad input: 4xx + JSON error, never a crash
  step = 'bad-input';
  for (const [method, p, want] of [['GET', '/api/message?offset=abc', 400], ['GET', '/api/message', 400], ['GET', '/api/nothing', 404],
    ['DELETE', '/api/topics', 405], ['GET', '/api/messages/by-key?topic=NoSuchTopic&key=x', 404], ['POST', '/api/topics?topic=bad%20name', 400]]) {
    const r = await fetch(`${URL_.replace(/\/$/, '')}${p}`, { method, headers: { 'X-Rocketstore-Console': '1' } });
    const body = await r.json().catch(() => null);
    check(r.status === want && body && typeof body.error === 'string' && body.error.length > 0, `${method} ${p}: ${r.status} ${JSON.stringify(body)}`);
  }
  console.log('ok: bad input answered with 4xx + JSON errors');
  // Cross-site request protection: a POST without the console's header (what a form on
  // another site sends) or from another Origin is refused and changes nothing.
  step = 'csrf';
  for (const headers of [{}, { 'X-Rocketstore-Console': '1', Origin: 'http://evil.example' }]) {
    const r = await fetch(`${URL_.replace(/\/$/, '')}/api/topics?topic=CsrfTopic`, { method: 'POST', headers });
    check(r.status === 403, `csrf POST ${JSON.stringify(headers)}: ${r.status}`);
  }
  console.log('ok: cross-site POSTs refused');

  // 6. read-only mode: a second serve started with --console-read-only (with a topic, a
  // group and a DLQ message of its own, made over the remoting protocol) shows a badge and
  // no control that changes anything, and refuses every change (403 naming the flag).
  step = 'read-only';
  check(RO && process.env.RO_BROKER_ADDR, 'CONSOLE_RO_URL / RO_BROKER_ADDR not set (run_browser.sh starts the read-only serve)');
  const roBroker = new Remoting(process.env.RO_BROKER_ADDR); await roBroker.connect();
  const roTopic = `RoTopic_${RUN}`; const roGroup = `RoGroup_${RUN}`;
  const roSent = await produce(roBroker, 4, roTopic);
  for (let q = 0; q < 4; q++) await commitOffset(roBroker, roGroup, roTopic, q, 0);
  await sendToDlq(roBroker, roGroup, roSent[0], roTopic);
  const roDlq = await waitForDlq(RO, roGroup);
  const roCluster = await (await fetch(`${RO}/api/cluster`)).json();
  check(roCluster.readOnlyConsole === true, `read-only console reports readOnlyConsole=${roCluster.readOnlyConsole}`);
  // The main console: no badge, and the controls are there (what the read-only one lacks).
  await page.goto(`${URL_}#/topics`);
  await waitFor(`tr[data-topic="${TOPIC}"] [data-testid=delete-topic]`, 'delete button on the read-write console');
  check(!(await page.isVisible('[data-testid=read-only-badge]')), 'read-only badge shown on the read-write console');
  check(await page.$('[data-testid=create-topic]'), 'no create form on the read-write console');
  await page.goto(`${RO}/#/topics`);
  await waitFor(`tr[data-topic="${roTopic}"]`, 'read-only console topics');
  check(await page.isVisible('[data-testid=read-only-badge]'), 'no read-only badge');
  check((await page.$$('[data-testid=create-topic]')).length === 0, 'create form shown in read-only mode');
  check((await page.$$('[data-testid=delete-topic]')).length === 0, 'delete buttons shown in read-only mode');
  check(await page.$('[data-testid=read-only-note]'), 'no read-only note in place of the create form');
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'console-read-only.png'), fullPage: true });
  await page.goto(`${RO}/#/group?group=${roGroup}`);
  await waitFor('[data-testid=reset-preview]', 'read-only group page');
  check((await page.$$('[data-testid=reset-apply]')).length === 0, 'reset button shown in read-only mode');
  await page.fill('[data-testid=reset-topic]', roTopic);
  await page.fill('[data-testid=reset-time]', '0');
  await page.click('[data-testid=reset-preview]');
  await waitFor('[data-testid=reset-table]', 'the preview (a dry run) works in read-only mode');
  await page.goto(`${RO}/#/message?offset=${roDlq.offset}`);
  await waitFor('[data-testid=where-segment]', 'read-only DLQ message detail');
  check((await page.$$('[data-testid=resend]')).length === 0, 'resend button shown in read-only mode');
  for (const p of [`/api/topics?topic=RoTopic`, `/api/topics/delete?topic=${roTopic}`, `/api/messages/resend-dlq?offset=${roDlq.offset}`,
    `/api/groups/reset-offset?group=${roGroup}&topic=${roTopic}&timestamp=0`]) {
    const r = await fetch(`${RO}${p}`, { method: 'POST', headers: { 'X-Rocketstore-Console': '1' } });
    const body = await r.json().catch(() => null);
    check(r.status === 403 && body && /read-only/.test(body.error), `read-only POST ${p}: ${r.status} ${JSON.stringify(body)}`);
  }
  const roTopics = await (await fetch(`${RO}/api/topics`)).json();
  check(!roTopics.topics.some(t => t.topic === 'RoTopic') && roTopics.topics.some(t => t.topic === roTopic), 'read-only console changed its topics');
  roBroker.close();
  console.log('ok: read-only console: badge, no changing controls, changes refused (403)');
  step = 'no-external-network';
  check(external.length === 0, `the pages asked for something outside the console: ${JSON.stringify(external)}`);
  console.log('ok: no request left the console\'s origin');
  await browser.close();
  broker.close(); namesrv.close();
}

main().catch(e => fail(e instanceof CheckFailed ? e.message : (e.stack || e.message)));
