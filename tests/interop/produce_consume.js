'use strict';
// ali-ons 3.12.0 against `rocketstore serve` (remoting-protocol.md Part B).
// Env: NAMESRV=host:port, BROKER_ADDR=host:port, COUNT (default 1000).
// Checks: COUNT messages produced with tags and keys; a consumer group subscribed to TagA
// receives exactly the TagA messages with bodies/tags/keys intact; after a restart the
// group resumes from its committed offset (only new messages delivered); a message is
// found by key over the wire (QUERY_MESSAGE). Exit 0 on success, 1 on failure.
const { Producer, Consumer, Message } = require('ali-ons');
const RemotingCommand = require('ali-ons/lib/protocol/command/remoting_command');
const MessageDecoder = require('ali-ons/lib/message/message_decoder');
const ByteBuffer = require('byte');

const NAMESRV = process.env.NAMESRV;
const BROKER = process.env.BROKER_ADDR;
const COUNT = Number(process.env.COUNT || 1000);
const RUN = `${process.pid}_${Date.now()}`;
const TOPIC = `InteropTopic_${RUN}`;
const GROUP = `InteropConsumer_${RUN}`;
const httpclient = {};
const quiet = { info() {}, warn() {}, debug() {}, error(e) { console.error('[ali-ons]', e && e.message || e); } };

const sleep = ms => new Promise(r => setTimeout(r, ms));
function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}
function tagOf(i) { return ['TagA', 'TagB', 'TagC'][i % 3]; }

async function withTimeout(promise, ms, what) {
  let t;
  const timeout = new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timeout: ${what}`)), ms); });
  try { return await Promise.race([promise, timeout]); } finally { clearTimeout(t); }
}

async function consumeUntil(expected, ms, label) {
  const got = new Map();
  const consumer = new Consumer({
    nameSrv: NAMESRV, httpclient, consumerGroup: GROUP, logger: quiet,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: `interop-${label}-${process.pid}`,
  });
  consumer.on('error', () => {});  // QUERY_NOT_FOUND etc. are reported as non-fatal events
  await consumer.ready();
  let done;
  const finished = new Promise(r => { done = r; });
  consumer.subscribe(TOPIC, 'TagA', async msg => {
    const idx = Number(msg.properties.INTEROP_IDX);
    got.set(idx, msg);
    if (got.size >= expected) done();
  });
  try {
    await withTimeout(finished, ms, `${label}: ${got.size}/${expected} received`);
  } catch (e) {
    fail(e.message);
  }
  await sleep(1500);  // let duplicates (if any) show up
  await consumer.close();
  return got;
}

async function main() {
  const producer = new Producer({ nameSrv: NAMESRV, httpclient, producerGroup: `InteropProducer_${RUN}`, logger: quiet });
  producer.on('error', () => {});
  await producer.ready();
  await producer._mqClient.createTopic(BROKER, 'TBW102', {
    topicName: TOPIC, readQueueNums: 4, writeQueueNums: 4, perm: 6,
    topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
  }, 3000);

  // The route appears after the broker re-registers; retry the first send until then.
  const send = async i => {
    const msg = new Message(TOPIC, tagOf(i), `body-${i}`);
    msg.keys = [`k${i}`, `idx${i}`];
    msg.properties.INTEROP_IDX = String(i);
    return producer.send(msg);
  };
  let first;
  for (let attempt = 0; attempt < 50 && !first; attempt++) {
    try { first = await send(0); } catch (e) { await sleep(200); }
  }
  if (!first || first.sendStatus !== 'SEND_OK') fail('first send did not succeed');
  for (let i = 1; i < COUNT; i++) {
    const r = await send(i);
    if (r.sendStatus !== 'SEND_OK') fail(`send ${i}: ${r.sendStatus}`);
  }
  console.log(`produced ${COUNT} messages to ${TOPIC}`);

  const expectA = [];
  for (let i = 0; i < COUNT; i++) if (tagOf(i) === 'TagA') expectA.push(i);
  const got = await consumeUntil(expectA.length, 90000, 'first');
  if (got.size !== expectA.length) fail(`received ${got.size}, expected ${expectA.length}`);
  for (const i of expectA) {
    const m = got.get(i);
    if (!m) fail(`message ${i} missing`);
    if (m.tags !== 'TagA') fail(`message ${i} tag ${m.tags}`);
    if (m.body.toString() !== `body-${i}`) fail(`message ${i} body ${m.body.toString()}`);
    if (m.keys !== `k${i} idx${i}`) fail(`message ${i} keys ${m.keys}`);
  }
  for (const i of got.keys()) if (tagOf(i) !== 'TagA') fail(`received non-TagA message ${i}`);
  console.log(`consumer received exactly the ${got.size} TagA messages, intact`);

  // Restart: only the new messages are delivered.
  const extra = [];
  for (let i = COUNT; i < COUNT + 30; i++) {
    await send(i);
    if (tagOf(i) === 'TagA') extra.push(i);
  }
  const again = await consumeUntil(extra.length, 60000, 'restart');
  for (const i of extra) if (!again.has(i)) fail(`after restart message ${i} missing`);
  const redelivered = [...again.keys()].filter(i => i < COUNT).length;
  if (redelivered > 0) fail(`after restart ${redelivered} old messages were redelivered`);
  console.log(`after restart the consumer resumed: ${again.size} new messages, 0 redelivered`);

  // QUERY_MESSAGE by key over the wire.
  const key = 'k7';
  let found = null;
  for (let attempt = 0; attempt < 20 && !found; attempt++) {
    const req = RemotingCommand.createRequestCommand(12, {
      topic: TOPIC, key, maxNum: 32, beginTimestamp: 0, endTimestamp: Date.now() + 60000,
    });
    const resp = await producer._mqClient.invoke(BROKER, req, 3000);
    if (resp.code === 0) {
      const buf = ByteBuffer.allocate(resp.body.length);
      buf.put(resp.body).flip();
      found = MessageDecoder.decodes(buf);
    } else {
      await sleep(200);
    }
  }
  if (!found || found.length !== 1 || found[0].body.toString() !== 'body-7') fail('query by key k7');
  console.log('found message by key k7 over the wire');
  await producer.close();
  console.log('PASS');
  process.exit(0);
}

main().catch(e => fail(e && e.stack || e));
