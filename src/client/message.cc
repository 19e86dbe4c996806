#include "client/message.h"

#include <string>

#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::client {

std::optional<std::string> MessageExt::Property(std::string_view name) const {
  auto v = format::FindProperty(properties, name);
  if (!v) return std::nullopt;
  return std::string(*v);
}

Result<std::vector<MessageExt>> DecodeMessages(std::span<const uint8_t> body, bool check_crc) {
  std::vector<MessageExt> out;
  size_t pos = 0;
  while (pos < body.size()) {
    format::DecodeResult d = format::DecodeRecord(body.subspan(pos), check_crc);
    if (d.outcome != format::DecodeOutcome::kRecord) {
      return Corruption("message at byte " + std::to_string(pos) + " of a " +
                        std::to_string(body.size()) + "-byte body does not decode: " +
                        (d.error.empty() ? std::string("not a message record") : d.error));
    }
    const format::RecordView& r = d.record;
    MessageExt m;
    m.topic = std::string(r.topic);
    m.queue_id = r.queue_id;
    m.queue_offset = r.queue_offset;
    m.commit_log_offset = r.physical_offset;
    m.flag = r.flag;
    m.sys_flag = r.sys_flag;
    m.born_timestamp = r.born_timestamp;
    m.store_timestamp = r.store_timestamp;
    m.born_host = r.born_host.ToString();
    m.store_host = r.store_host.ToString();
    m.reconsume_times = r.reconsume_times;
    m.body = std::string(r.body);
    m.properties = std::string(r.properties);
    m.offset_msg_id = format::EncodeOffsetMsgId(r.store_host, r.physical_offset);
    auto uniq = format::FindProperty(r.properties, format::kPropertyUniqKey);
    m.msg_id = uniq ? std::string(*uniq) : m.offset_msg_id;
    out.push_back(std::move(m));
    if (r.total_size <= 0) return Corruption("record with size <= 0 in a message body");
    pos += static_cast<size_t>(r.total_size);
  }
  return out;
}

std::string_view SendStatusName(SendStatus s) {
  switch (s) {
    case SendStatus::kOk:
      return "SEND_OK";
    case SendStatus::kFlushDiskTimeout:
      return "FLUSH_DISK_TIMEOUT";
    case SendStatus::kFlushSlaveTimeout:
      return "FLUSH_SLAVE_TIMEOUT";
    case SendStatus::kSlaveNotAvailable:
      return "SLAVE_NOT_AVAILABLE";
  }
  return "UNKNOWN";
}

Result<std::string> BuildProperties(const Message& m, std::string_view uniq_id) {
  if (m.topic.empty()) return InvalidArgument("message topic is empty: name the topic to send to");
  if (m.delay_level < 0) {
    return InvalidArgument("delay level " + std::to_string(m.delay_level) +
                           " is negative: use 0 (none) or a level 1..18");
  }
  if (m.deliver_time_ms != 0 && m.delay_sec != 0) {
    return InvalidArgument(
        "both a deliver time (TIMER_DELIVER_MS) and a delay (TIMER_DELAY_SEC) are set: use one");
  }
  if (m.deliver_time_ms < 0 || m.delay_sec < 0) {
    return InvalidArgument("timer deliver time / delay is negative");
  }
  format::PropertiesBuilder b(format::PropertiesFormat::RocketMq4_9_8());
  // User properties first, then the system ones, as a Java Message accumulates them
  // (putUserProperty before send; the producer adds UNIQ_KEY and WAIT).
  for (const auto& [k, v] : m.properties) {
    if (k.empty()) return InvalidArgument("a user property has an empty name");
    if (k.find_first_of("\x01\x02") != std::string::npos ||
        v.find_first_of("\x01\x02") != std::string::npos) {
      return InvalidArgument("user property " + k + " contains the separator bytes 0x01/0x02");
    }
    b.Put(k, v);
  }
  if (!m.keys.empty()) {
    std::string keys;
    for (const auto& k : m.keys) {
      if (k.empty()) continue;
      if (!keys.empty()) keys += ' ';
      keys += k;
    }
    if (!keys.empty()) b.Put(format::kPropertyKeys, keys);
  }
  if (!m.tags.empty()) b.Put(format::kPropertyTags, m.tags);
  if (m.delay_level > 0) b.Put(format::kPropertyDelay, std::to_string(m.delay_level));
  if (m.deliver_time_ms > 0) b.Put(kPropertyTimerDeliverMs, std::to_string(m.deliver_time_ms));
  if (m.delay_sec > 0) b.Put(kPropertyTimerDelaySec, std::to_string(m.delay_sec));
  b.Put(format::kPropertyWait, m.wait_store_ok ? "true" : "false");
  if (!uniq_id.empty()) b.Put(format::kPropertyUniqKey, uniq_id);
  std::string out = b.Build();
  if (out.size() > format::kMaxPropertiesLength) {
    return InvalidArgument("message properties are " + std::to_string(out.size()) +
                           " bytes, over the limit of 32767: send fewer or shorter properties");
  }
  return out;
}

}  // namespace rocketstore::client
