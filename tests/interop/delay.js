'use strict';
// ali-ons 3.12.0 delay levels against `rocketstore serve` (run_interop.sh's broker.conf:
// messageDelayLevel "1s 2s 1s 1s ..."). Env: NAMESRV=host:port, BROKER_ADDR=host:port.
// A plain message arrives at once; a message with delayTimeLevel 1 arrives after >= 1 s and
// one with level 2 after >= 2 s, on their own topic, with body / tags / keys intact and DELAY,
// REAL_TOPIC, REAL_QID as RocketMQ leaves them; a level past the last one is refused at send
// (nothing stored). Exit 0 on success, 1 on failure.
const { Producer, Consumer, Message } = require('ali-ons');

const NAMESRV = process.env.NAMESRV;
const BROKER = process.env.BROKER_ADDR;
const RUN = `${process.pid}_${Date.now()}`;
const TOPIC = `DelayTopic_${RUN}`;
const GROUP = `DelayConsumer_${RUN}`;
const httpclient = {};
const quiet = { info() {}, warn() {}, debug() {}, error() {} };

const sleep = ms => new Promise(r => setTimeout(r, ms));
function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}
async function waitFor(pred, ms, what) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) fail(`timeout: ${what}`);
    await sleep(50);
  }
}

async function main() {
  const producer = new Producer({ nameSrv: NAMESRV, httpclient, producerGroup: `DelayProducer_${RUN}`, logger: quiet });
  producer.on('error', () => {});
  await producer.ready();
  await producer._mqClient.createTopic(BROKER, 'TBW102', {
    topicName: TOPIC, readQueueNums: 2, writeQueueNums: 2, perm: 6,
    topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
  }, 3000);

  const got = new Map();
  const consumer = new Consumer({
    nameSrv: NAMESRV, httpclient, consumerGroup: GROUP, logger: quiet,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: `delay-${process.pid}`,
  });
  consumer.on('error', () => {});
  await consumer.ready();
  consumer.subscribe(TOPIC, '*', async m => { got.set(m.keys, { m, at: Date.now() }); });
  await sleep(1500);  // the consumer's first rebalance

  async function send(key, level) {
    const msg = new Message(TOPIC, 'TagD', `body of ${key}`);
    msg.keys = [key];
    if (level !== undefined) msg.delayTimeLevel = level;
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const r = await producer.send(msg);
        if (r.sendStatus !== 'SEND_OK') fail(`${key}: ${r.sendStatus}`);
        return Date.now();
      } catch (e) { await sleep(200); }
    }
    fail(`${key}: send did not succeed`);
  }
  const sentAt = { plain: await send('plain'), l1: await send('l1', 1), l2: await send('l2', 2) };

  // A level past the last (18) is refused with an error naming DELAY; nothing is stored.
  const bad = new Message(TOPIC, 'TagD', 'never stored');
  bad.keys = ['bad'];
  bad.delayTimeLevel = 99;
  let refused = null;
  try { await producer.send(bad); } catch (e) { refused = e; }
  if (!refused || !/DELAY/.test(refused.message)) fail(`level 99 was not refused: ${refused && refused.message}`);
  console.log(`level 99 refused: ${refused.message}`);

  await waitFor(() => got.size >= 3, 30000, `${got.size}/3 messages`);
  await sleep(1000);
  await consumer.close();
  await producer.close();
  if (got.has('bad')) fail('the refused message was delivered');
  const expect = { plain: [0, 900], l1: [1000, 5000], l2: [2000, 6000] };
  for (const [key, [min, max]] of Object.entries(expect)) {
    const { m, at } = got.get(key) || fail(`${key} not delivered`);
    const after = at - sentAt[key];
    if (after < min - 50 || after > max) fail(`${key} arrived ${after} ms after its send, expected ${min}..${max}`);
    if (m.topic !== TOPIC || m.tags !== 'TagD' || m.body.toString() !== `body of ${key}`) {
      fail(`${key}: topic/tags/body ${m.topic}/${m.tags}/${m.body.toString()}`);
    }
    if (key !== 'plain') {
      const level = key === 'l1' ? '1' : '2';
      if (m.properties.DELAY !== level) fail(`${key}: DELAY ${m.properties.DELAY}`);
      if (m.properties.REAL_TOPIC !== TOPIC) fail(`${key}: REAL_TOPIC ${m.properties.REAL_TOPIC}`);
      if (String(m.queueId) !== m.properties.REAL_QID) fail(`${key}: queue ${m.queueId} REAL_QID ${m.properties.REAL_QID}`);
    }
    console.log(`${key} arrived ${after} ms after its send`);
  }
  console.log('PASS');
  process.exit(0);
}

main().catch(e => fail(e && e.stack || e));
