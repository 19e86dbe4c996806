'use strict';
// Our C++ client (through the `rocketstore` CLI: produce / consume) against ali-ons 3.12.0,
// both ways, on `rocketstore serve`.
// Env: NAMESRV=host:port, ROCKETSTORE_BIN=path of the rocketstore binary.
// Checks: messages produced by our client (key, tag, user property) reach an ali-ons
// consumer group intact; messages produced by ali-ons (tag, keys, user property) are read by
// our client's group consumer (`consume --group --format json`) intact, and its committed
// offsets show zero lag in `group describe`. Exit 0 on success, 1 on failure.
const { execFileSync } = require('child_process');
const { Producer, Consumer, Message } = require('ali-ons');

const NAMESRV = process.env.NAMESRV;
const BIN = process.env.ROCKETSTORE_BIN;
const RUN = `${process.pid}_${Date.now()}`;
const TOPIC = `ClientInterop_${RUN}`;
const N = 20;
const httpclient = {};
const quiet = { info() {}, warn() {}, debug() {}, error(e) { console.error('[ali-ons]', e && e.message || e); } };
const sleep = ms => new Promise(r => setTimeout(r, ms));
function fail(msg) { console.error('FAIL: ' + msg); process.exit(1); }
function cli(args, input) {
  return execFileSync(BIN, args.concat(['--namesrv', NAMESRV]), { input: input || '', encoding: 'utf8' });
}

async function main() {
  cli(['topic', 'create', TOPIC, '--queues', '4']);
  // 1. Our client produces, ali-ons consumes.
  const lines = [];
  for (let i = 0; i < N; i++) lines.push(`ours-${i}`);
  const sent = JSON.parse(cli(['produce', TOPIC, '--key', 'ck', '--tag', 'FromCpp',
    '--property', 'origin=cpp', '--format', 'json'], lines.join('\n') + '\n'));
  if (sent.sent !== N) fail(`our producer sent ${sent.sent}`);
  const got = new Map();
  const consumer = new Consumer({
    nameSrv: NAMESRV, httpclient, consumerGroup: `AliFromCpp_${RUN}`, logger: quiet,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: `ali-${process.pid}`,
  });
  consumer.on('error', () => {});
  await consumer.ready();
  let done;
  const finished = new Promise(r => { done = r; });
  consumer.subscribe(TOPIC, 'FromCpp', async msg => {
    got.set(msg.body.toString(), msg);
    if (got.size >= N) done();
  });
  await Promise.race([finished, sleep(30000)]);
  await consumer.close();
  if (got.size !== N) fail(`ali-ons received ${got.size} of ${N} messages from our producer`);
  for (const [body, msg] of got) {
    if (!body.startsWith('ours-')) fail(`unexpected body ${body}`);
    if (msg.tags !== 'FromCpp') fail(`tag ${msg.tags}`);
    const keys = Array.isArray(msg.keys) ? msg.keys.join(' ') : String(msg.keys);
    if (keys !== 'ck') fail(`keys ${keys}`);
    if (msg.properties.origin !== 'cpp') fail(`property origin ${msg.properties.origin}`);
    // ali-ons reports the broker's offset id as msgId; UNIQ_KEY is our client's id.
    if (!sent.results.some(r => r.offsetMsgId === msg.msgId)) fail(`msgId ${msg.msgId} is not an offsetMsgId our producer returned`);
    if (!sent.results.some(r => r.msgId === msg.properties.UNIQ_KEY)) fail(`UNIQ_KEY ${msg.properties.UNIQ_KEY} is not a msgId our producer returned`);
  }
  console.log(`ali-ons consumed ${N} messages produced by the C++ client`);

  // 2. ali-ons produces, our client consumes.
  const producer = new Producer({ nameSrv: NAMESRV, httpclient, producerGroup: `AliP_${RUN}`, logger: quiet });
  await producer.ready();
  for (let i = 0; i < N; i++) {
    const m = new Message(TOPIC, 'FromAli', Buffer.from(`ali-${i}`));
    m.keys = [`ak${i}`];
    m.properties.origin = 'ali';
    const r = await producer.send(m);
    if (r.sendStatus !== 'SEND_OK') fail(`ali-ons send ${r.sendStatus}`);
  }
  await producer.close();
  const group = `CppFromAli_${RUN}`;
  const out = cli(['consume', TOPIC, '--group', group, '--expression', 'FromAli',
    '--count', String(N), '--idle-timeout', '5000', '--format', 'json']);
  const msgs = out.trim().split('\n').filter(l => l).map(l => JSON.parse(l));
  if (msgs.length !== N) fail(`our consumer read ${msgs.length} of ${N} ali-ons messages`);
  const bodies = new Set(msgs.map(m => m.body));
  for (let i = 0; i < N; i++) {
    if (!bodies.has(`ali-${i}`)) fail(`our consumer missed ali-${i}`);
  }
  for (const m of msgs) {
    if (m.tags !== 'FromAli') fail(`our consumer got tag ${m.tags}`);
    if (!/^ak\d+$/.test(m.keys)) fail(`keys ${m.keys}`);
    if (m.properties.origin !== 'ali') fail(`property origin ${m.properties.origin}`);
  }
  // Everything of the topic was consumed by the group (FromCpp ones skipped by the filter
  // still count as consumed), so the committed offsets leave no lag.
  let lag = -1;
  for (let i = 0; i < 40 && lag !== 0; i++) {
    lag = JSON.parse(cli(['group', 'describe', group, '--topic', TOPIC, '--format', 'json'])).totalLag;
    if (lag !== 0) await sleep(100);
  }
  if (lag !== 0) fail(`group describe shows lag ${lag} after our consumer read everything`);
  console.log(`the C++ client consumed ${N} messages produced by ali-ons; lag 0`);
  process.exit(0);
}
main().catch(e => fail(e.stack || e.message));
