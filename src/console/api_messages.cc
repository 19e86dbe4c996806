// The Messages screen's endpoints: find by key, message id or time range; the detail with
// where the message lives; resend a DLQ message to its topic.
#include <algorithm>
#include <limits>

#include "broker/service/reput.h"
#include "broker/system_topics.h"
#include "console/api_util.h"
#include "console/console_api.h"
#include "console/utf8.h"
#include "console/where_it_lives.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::console {

using internal::ErrorReply;
using internal::JsonReply;
using internal::JsonWriter;
using internal::Str;

namespace {

constexpr int64_t kMaxResults = 64;
constexpr size_t kMaxBodyShown = 64 * 1024;  // bytes of a body shown in hex

std::string Hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

void WriteSummary(JsonWriter& w, const format::RecordView& r) {
  w.StartObject();
  w.Key("offset"), w.Int64(r.physical_offset);
  w.Key("msgId"), Str(w, format::EncodeOffsetMsgId(r.store_host, r.physical_offset));
  w.Key("uniqKey"),
      Str(w, format::FindProperty(r.properties, format::kPropertyUniqKey).value_or(""));
  w.Key("topic"), Str(w, r.topic);
  w.Key("queueId"), w.Int(r.queue_id);
  w.Key("queueOffset"), w.Int64(r.queue_offset);
  w.Key("tags"), Str(w, format::FindProperty(r.properties, format::kPropertyTags).value_or(""));
  w.Key("keys"), Str(w, format::FindProperty(r.properties, format::kPropertyKeys).value_or(""));
  w.Key("storeTimestamp"), w.Int64(r.store_timestamp);
  w.Key("bodySize"), w.Uint64(r.body.size());
  w.EndObject();
}

// Decodes the record in `bytes` (CRC checked: the console shows what a consumer gets).
Result<format::RecordView> Decode(const CommitLogBytes& bytes) {
  format::DecodeResult d = format::DecodeRecord(bytes.bytes, true);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Status(StatusCode::kCorruption, "the bytes there are not a message record: " + d.error);
  }
  return d.record;
}

}  // namespace

HttpReply ConsoleApi::MessagesByKey(const HttpRequest& r) {
  auto topic = internal::Required(r, "topic", "topic name");
  if (!topic.ok()) return internal::StatusReply(topic.status());
  auto key = internal::Required(r, "key", "message key (KEYS or UNIQ_KEY)");
  if (!key.ok()) return internal::StatusReply(key.status());
  auto begin = internal::TimeParam(r, "begin", 0);
  if (!begin.ok()) return internal::StatusReply(begin.status());
  auto end = internal::TimeParam(r, "end", std::numeric_limits<int64_t>::max());
  if (!end.ok()) return internal::StatusReply(end.status());
  if (*end < *begin) return ErrorReply(400, "end is before begin: swap them");
  auto max = internal::IntParam(r, "max", 32, 1, kMaxResults);
  if (!max.ok()) return internal::StatusReply(max.status());
  if (!broker_.topics().Find(*topic)) {
    return ErrorReply(404, "no topic " + topic->substr(0, 200) + " on this broker");
  }
  auto found = broker_.store().QueryMessage(*topic, *key, static_cast<int>(*max), *begin, *end);
  if (!found.ok()) return internal::StatusReply(found.status());
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("messages");
    w.StartArray();
    for (const LoadedRecord& m : found->messages) WriteSummary(w, m.record);
    w.EndArray();
    w.Key("hashCollisions"), w.Int(found->hash_collisions);
  });
}

HttpReply ConsoleApi::MessageById(const HttpRequest& r) {
  auto id = internal::Required(r, "msgId", "offset message id (32 or 56 hex characters)");
  if (!id.ok()) return internal::StatusReply(id.status());
  auto decoded = format::DecodeOffsetMsgId(*id);
  if (!decoded.ok()) {
    return ErrorReply(400, "\"" + id->substr(0, 80) + "\" is not an offset message id (" +
                               decoded.status().message() +
                               "); a client's UNIQ_KEY id is found with by-key");
  }
  auto m = broker_.store().LookMessageByMsgId(*id);
  if (!m.ok()) {
    return ErrorReply(404, "no message with id " + *id + " here: " + m.status().message());
  }
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("messages");
    w.StartArray();
    WriteSummary(w, m->record);
    w.EndArray();
  });
}

HttpReply ConsoleApi::MessagesByTime(const HttpRequest& r) {
  auto topic = internal::Required(r, "topic", "topic name");
  if (!topic.ok()) return internal::StatusReply(topic.status());
  auto begin = internal::TimeParam(r, "begin", std::nullopt);
  if (!begin.ok()) return internal::StatusReply(begin.status());
  auto end = internal::TimeParam(r, "end", std::numeric_limits<int64_t>::max());
  if (!end.ok()) return internal::StatusReply(end.status());
  if (*end < *begin) return ErrorReply(400, "end is before begin: swap them");
  auto max = internal::IntParam(r, "max", 32, 1, kMaxResults);
  if (!max.ok()) return internal::StatusReply(max.status());
  auto config = broker_.topics().Find(*topic);
  if (!config) return ErrorReply(404, "no topic " + topic->substr(0, 200) + " on this broker");
  MessageStore& store = broker_.store();
  std::vector<std::pair<CommitLogBytes, format::RecordView>> found;
  for (int32_t q = 0; q < config->read_queue_nums; ++q) {
    auto from = store.GetFirstOffsetInQueueAtOrAfter(*topic, q, *begin);
    if (!from.ok()) continue;
    QueueOffset at = *from;
    int64_t taken = 0;
    bool past_end = false;
    while (!past_end && taken < *max) {
      auto units = store.GetQueueUnits(*topic, q, at, static_cast<int>(*max));
      if (!units.ok() || units->empty()) break;
      for (const auto& u : *units) {
        auto bytes = store.ReadRecord(u.offset);
        if (!bytes.ok()) continue;
        auto rec = Decode(*bytes);
        if (!rec.ok()) continue;
        if (rec->store_timestamp > *end) {
          past_end = true;
          break;
        }
        found.emplace_back(std::move(bytes).value(), *rec);
        if (++taken >= *max) break;
      }
      at += static_cast<int64_t>(units->size());
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.second.store_timestamp < b.second.store_timestamp;
  });
  if (found.size() > static_cast<size_t>(*max)) found.resize(static_cast<size_t>(*max));
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("messages");
    w.StartArray();
    for (const auto& [bytes, rec] : found) WriteSummary(w, rec);
    w.EndArray();
  });
}

HttpReply ConsoleApi::MessageDetail(const HttpRequest& r) {
  auto off = internal::IntParam(r, "offset", std::nullopt, 0, std::numeric_limits<int64_t>::max());
  if (!off.ok()) return internal::StatusReply(off.status());
  MessageStore& store = broker_.store();
  if (*off < store.MinPhysicalOffset().value() || *off >= store.MaxPhysicalOffset().value()) {
    return ErrorReply(404, "no message at commit-log offset " + std::to_string(*off) +
                               ": the log holds [" +
                               std::to_string(store.MinPhysicalOffset().value()) + ", " +
                               std::to_string(store.MaxPhysicalOffset().value()) + ")");
  }
  auto bytes = store.ReadRecord(PhysicalOffset(*off));
  if (!bytes.ok()) {
    return ErrorReply(404, "no message at commit-log offset " + std::to_string(*off) + ": " +
                               bytes.status().message());
  }
  auto rec = Decode(*bytes);
  if (!rec.ok()) {
    return ErrorReply(404, "offset " + std::to_string(*off) +
                               " is not the start of a message record: " + rec.status().message());
  }
  const format::RecordView& m = *rec;
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("message");
    WriteSummary(w, m);
    w.Key("bornTimestamp"), w.Int64(m.born_timestamp);
    w.Key("bornHost"), Str(w, m.born_host.ToString());
    w.Key("storeHost"), Str(w, m.store_host.ToString());
    w.Key("reconsumeTimes"), w.Int(m.reconsume_times);
    w.Key("sysFlag"), w.Int(m.sys_flag);
    w.Key("flag"), w.Int(m.flag);
    w.Key("bodyCrc"), w.Uint(m.body_crc);
    w.Key("properties");
    w.StartObject();
    for (const auto& [k, v] : format::ParseProperties(m.properties)) {
      const std::string key = ToValidUtf8(k);
      w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
      Str(w, v);
    }
    w.EndObject();
    // The body as text: as stored when it is UTF-8, else with U+FFFD for each byte that
    // is not (bodyReplacedBytes says how many; the hex shows them all).
    size_t replaced = 0;
    const std::string text = ToValidUtf8(m.body, &replaced);
    w.Key("bodyIsText"), w.Bool(replaced == 0);
    w.Key("bodyText"), Str(w, text);
    w.Key("bodyReplacedBytes"), w.Uint64(replaced);
    w.Key("bodyHex"), Str(w, Hex(m.body.substr(0, kMaxBodyShown)));
    w.Key("bodyTruncated"), w.Bool(m.body.size() > kMaxBodyShown);
    w.Key("dlq"), w.Bool(m.topic.starts_with(broker::kDlqGroupTopicPrefix));
    w.Key("where");
    w.StartObject();
    WriteWhereItLives(w, store, m);
    w.EndObject();
  });
}

HttpReply ConsoleApi::ResendDlq(const HttpRequest& r) {
  auto off = internal::IntParam(r, "offset", std::nullopt, 0, std::numeric_limits<int64_t>::max());
  if (!off.ok()) return internal::StatusReply(off.status());
  const broker::Reputter* reput = broker_.reputter();
  if (!reput) return ErrorReply(503, "the broker is not started yet: try again");
  auto stored = reput->Read(*off);
  if (!stored.ok()) return internal::StatusReply(stored.status());
  const format::RecordView& m = stored->record;
  if (!m.topic.starts_with(broker::kDlqGroupTopicPrefix)) {
    return ErrorReply(400, "the message at offset " + std::to_string(*off) + " is in topic " +
                               std::string(m.topic) +
                               ", not a %DLQ% topic: only DLQ messages are resent");
  }
  auto target = format::FindProperty(m.properties, format::kPropertyRetryTopic);
  if (!target || target->empty()) {
    return ErrorReply(409,
                      "the DLQ message has no RETRY_TOPIC property: its original topic is unknown");
  }
  auto config = broker_.topics().Find(*target);
  if (!config || config->write_queue_nums <= 0) {
    return ErrorReply(409, "the original topic " + std::string(*target) +
                               " no longer exists (or has no write queue): create it first");
  }
  std::string props(m.properties);
  for (std::string_view p :
       {format::kPropertyDelay, format::kPropertyRealTopic, format::kPropertyRealQueueId}) {
    props = format::RemoveProperty(props, p);
  }
  broker::DraftMessage draft = broker::DraftFromRecord(m);
  draft.SetTopic(std::string(*target));
  draft.queue_id = static_cast<int32_t>(m.queue_offset % config->write_queue_nums);
  draft.reconsume_times = 0;
  draft.SetProperties(std::move(props));
  broker::ReputResult put = reput->Put(broker::PutOrigin::kSystem, draft);
  if (!put.stored()) {
    return ErrorReply(503, "the broker did not store the message: " +
                               std::string(broker::OutcomeName(put.verdict.outcome)) + " " +
                               put.verdict.remark);
  }
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("topic"), Str(w, draft.topic());
    w.Key("queueId"), w.Int(draft.queue_id);
    w.Key("offset"), w.Int64(put.put.first.offset.value());
  });
}

}  // namespace rocketstore::console
