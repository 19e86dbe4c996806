'use strict';
// ali-ons 3.12.0 consumer retry and dead-letter queue against `rocketstore serve`.
// Env: NAMESRV=host:port, BROKER_ADDR=host:port.
// A consumer (maxReconsumeTimes 2) whose handler always throws: ali-ons sends the message
// back (CONSUMER_SEND_MSG_BACK, delayLevel 0) after each failure; it is delivered again
// from %RETRY%<group> with reconsumeTimes 1, then 2, RETRY_TOPIC / ORIGIN_MESSAGE_ID set
// and the body and keys intact; the third failure puts it in %DLQ%<group>, where a reader
// group finds it (reconsumeTimes 3). serve runs with 1 s levels (run_interop.sh's broker.conf):
// each redelivery comes after its delay level (levels 3 and 4 = 1 s), through
// SCHEDULE_TOPIC_XXXX (REAL_TOPIC = %RETRY%<group>).
// Exit 0 on success, 1 on failure.
const { Producer, Consumer, Message } = require('ali-ons');

const NAMESRV = process.env.NAMESRV;
const BROKER = process.env.BROKER_ADDR;
const RUN = `${process.pid}_${Date.now()}`;
const TOPIC = `RetryTopic_${RUN}`;
const GROUP = `RetryConsumer_${RUN}`;
const MAX = 2;
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
    await sleep(100);
  }
}

async function main() {
  const producer = new Producer({ nameSrv: NAMESRV, httpclient, producerGroup: `RetryProducer_${RUN}`, logger: quiet });
  producer.on('error', () => {});
  await producer.ready();
  await producer._mqClient.createTopic(BROKER, 'TBW102', {
    topicName: TOPIC, readQueueNums: 1, writeQueueNums: 1, perm: 6,
    topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
  }, 3000);
  const msg = new Message(TOPIC, 'TagR', 'retry me');
  msg.keys = ['rk1'];
  let sent;
  for (let attempt = 0; attempt < 50 && !sent; attempt++) {
    try { sent = await producer.send(msg); } catch (e) { await sleep(200); }
  }
  if (!sent || sent.sendStatus !== 'SEND_OK') fail('send did not succeed');
  console.log(`sent ${sent.msgId} to ${TOPIC}`);

  const deliveries = [];
  const consumer = new Consumer({
    nameSrv: NAMESRV, httpclient, consumerGroup: GROUP, logger: quiet, maxReconsumeTimes: MAX,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: `retry-${process.pid}`,
  });
  consumer.on('error', () => {});  // the handler's failures are reported as error events
  await consumer.ready();
  consumer.subscribe(TOPIC, '*', async m => {
    m.receivedAt = Date.now();
    deliveries.push(m);
    throw new Error(`failing on purpose (reconsumeTimes ${m.reconsumeTimes})`);
  });
  await waitFor(() => deliveries.length >= MAX + 1, 60000, `${deliveries.length}/${MAX + 1} deliveries`);
  await sleep(1500);  // a further delivery would be a bug
  await consumer.close();
  if (deliveries.length !== MAX + 1) fail(`${deliveries.length} deliveries, expected ${MAX + 1}`);
  deliveries.forEach((m, i) => {
    if (m.reconsumeTimes !== i) fail(`delivery ${i} has reconsumeTimes ${m.reconsumeTimes}`);
    if (m.body.toString() !== 'retry me') fail(`delivery ${i} body ${m.body.toString()}`);
    if (m.keys !== 'rk1' || m.tags !== 'TagR') fail(`delivery ${i} keys/tags ${m.keys}/${m.tags}`);
    if (m.topic !== TOPIC) fail(`delivery ${i} topic ${m.topic}`);
    if (i > 0) {
      if (m.properties.RETRY_TOPIC !== TOPIC) fail(`delivery ${i} RETRY_TOPIC ${m.properties.RETRY_TOPIC}`);
      if (!m.properties.ORIGIN_MESSAGE_ID) fail(`delivery ${i} has no ORIGIN_MESSAGE_ID`);
      // WAIT=false is what the broker's send-back stores (as Java's); the client's fallback
      // (a plain send to %RETRY%) would not have it.
      if (m.properties.WAIT !== 'false') fail(`delivery ${i} did not come from a send-back`);
      if (m.properties.ORIGIN_MESSAGE_ID !== deliveries[1].properties.ORIGIN_MESSAGE_ID) {
        fail(`delivery ${i} ORIGIN_MESSAGE_ID changed`);
      }
      // Delayed by the level 3 + (i - 1) = 1 s, as the Java broker does (not at once).
      const gap = m.receivedAt - deliveries[i - 1].receivedAt;
      if (gap < 900) fail(`delivery ${i} came ${gap} ms after the failure, before its 1 s level`);
      if (m.properties.DELAY !== String(3 + i - 1)) fail(`delivery ${i} DELAY ${m.properties.DELAY}`);
      if (m.properties.REAL_TOPIC !== `%RETRY%${GROUP}`) {
        fail(`delivery ${i} REAL_TOPIC ${m.properties.REAL_TOPIC}`);
      }
    }
  });
  console.log(`delivered ${deliveries.length} times (reconsumeTimes 0..${MAX}), each failure sent back`);

  // The dead-letter queue: a reader group subscribes %DLQ%<group> like any topic.
  const dlq = [];
  const reader = new Consumer({
    nameSrv: NAMESRV, httpclient, consumerGroup: `DlqReader_${RUN}`, logger: quiet,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: `dlq-${process.pid}`,
  });
  reader.on('error', () => {});
  await reader.ready();
  reader.subscribe(`%DLQ%${GROUP}`, '*', async m => { dlq.push(m); });
  await waitFor(() => dlq.length >= 1, 60000, `the message in %DLQ%${GROUP}`);
  await sleep(1000);
  await reader.close();
  if (dlq.length !== 1) fail(`${dlq.length} messages in the DLQ, expected 1`);
  const d = dlq[0];
  if (d.body.toString() !== 'retry me') fail(`DLQ body ${d.body.toString()}`);
  if (d.reconsumeTimes !== MAX + 1) fail(`DLQ reconsumeTimes ${d.reconsumeTimes}`);
  if (d.properties.RETRY_TOPIC !== TOPIC) fail(`DLQ RETRY_TOPIC ${d.properties.RETRY_TOPIC}`);
  if (d.properties.DELAY !== '0') fail(`DLQ DELAY ${d.properties.DELAY}`);
  console.log(`found it in %DLQ%${GROUP} with reconsumeTimes ${d.reconsumeTimes}`);
  await producer.close();
  console.log('PASS');
  process.exit(0);
}

main().catch(e => fail(e && e.stack || e));
