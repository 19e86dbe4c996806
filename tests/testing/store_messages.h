// Test messages for store tests: message i of a workload, with its own body, tag and key,
// and a check that a stored record is exactly that message.
#pragma once

#include <string>

#include "store/format/message_record.h"

namespace rocketstore::testing {

struct TestMessage {
  std::string topic = "TopicTest";
  std::string body;
  std::string properties;
  int32_t queue_id = 0;

  format::MessageToStore View() const {
    format::MessageToStore m;
    m.topic = topic;
    m.queue_id = queue_id;
    m.body = body;
    m.properties = properties;
    m.born_timestamp = 1700000000000;
    m.born_host = format::HostAddress::V4(127, 0, 0, 1, 5555);
    m.store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
    return m;
  }
};

// Message i: body "message-<i>-" padded to 40..70 bytes, TAGS Tag<i%3>, KEYS k<i>,
// queue i % queues.
inline TestMessage MakeTestMessage(int i, int queues = 4) {
  TestMessage m;
  m.body =
      "message-" + std::to_string(i) + "-" + std::string(static_cast<size_t>(30 + i % 31), 'x');
  m.properties = "TAGS\x01Tag" + std::to_string(i % 3) + "\x02KEYS\x01k" + std::to_string(i);
  m.queue_id = i % queues;
  return m;
}

// Whether the record bytes decode (CRC checked) to exactly `m`.
inline bool RecordMatches(std::span<const uint8_t> bytes, const TestMessage& m,
                          std::string* why = nullptr) {
  format::DecodeResult d = format::DecodeRecord(bytes, true);
  auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  if (d.outcome != format::DecodeOutcome::kRecord) return fail("does not decode: " + d.error);
  if (d.record.body != m.body) return fail("body differs");
  if (d.record.topic != m.topic) return fail("topic differs");
  if (d.record.properties != m.properties) return fail("properties differ");
  if (d.record.queue_id != m.queue_id) return fail("queue id differs");
  return true;
}

}  // namespace rocketstore::testing
