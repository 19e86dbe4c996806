#include "store/index/message_query.h"

#include <algorithm>
#include <limits>

#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore {
namespace {

// Errors that mean "no message at this candidate", not a failure of the query.
bool IsMissingRecord(const Status& s) {
  return s.code() == StatusCode::kNotFound || s.code() == StatusCode::kOutOfRange ||
         s.code() == StatusCode::kCorruption;
}

}  // namespace

Result<LoadedRecord> DecodeLoadedRecord(PhysicalOffset offset,
                                        std::shared_ptr<const void> keep_alive,
                                        std::span<const uint8_t> bytes) {
  format::DecodeResult d = format::DecodeRecord(bytes, /*check_crc=*/false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no message record at commit-log offset " + std::to_string(offset.value()) +
                      (d.error.empty() ? std::string() : ": " + d.error));
  }
  return LoadedRecord{offset, std::move(keep_alive), d.record};
}

RecordLoader CommitLogRecordLoader(const CommitLog& log) {
  return [&log](PhysicalOffset offset) -> Result<LoadedRecord> {
    RS_ASSIGN_OR_RETURN(CommitLogBytes b, log.ReadRecord(offset));
    return DecodeLoadedRecord(offset, b.file, b.bytes);
  };
}

bool RecordHasKey(const format::RecordView& record, std::string_view topic, std::string_view key) {
  if (record.topic != topic || key.empty()) return false;
  if (format::FindProperty(record.properties, format::kPropertyUniqKey) == key) return true;
  std::optional<std::string_view> keys =
      format::FindProperty(record.properties, format::kPropertyKeys);
  if (!keys) return false;
  std::string_view rest = *keys;
  std::string_view token;
  while (format::NextKey(rest, token)) {
    if (token == key) return true;
  }
  return false;
}

Result<QueryMessageResult> QueryMessage(const IndexService& index, const RecordLoader& load,
                                        std::string_view topic, std::string_view key, int max_num,
                                        int64_t begin, int64_t end) {
  QueryMessageResult result;
  int64_t round_end = end;
  for (int round = 0; round < 3; ++round) {
    QueryOffsetResult q = index.QueryOffsets(topic, key, max_num, begin, round_end);
    if (q.phy_offsets.empty()) break;
    result.index_last_update_timestamp = q.index_last_update_timestamp;
    result.index_last_update_phy_offset = q.index_last_update_phy_offset;
    std::sort(q.phy_offsets.begin(), q.phy_offsets.end());
    q.phy_offsets.erase(std::unique(q.phy_offsets.begin(), q.phy_offsets.end()),
                        q.phy_offsets.end());
    std::optional<int64_t> oldest_time;
    for (PhysicalOffset offset : q.phy_offsets) {
      Result<LoadedRecord> r = load(offset);
      if (!r.ok()) {
        if (!IsMissingRecord(r.status())) return r.status();
        ++result.unreadable;
        continue;
      }
      if (!oldest_time) oldest_time = r->record.store_timestamp;
      if (RecordHasKey(r->record, topic, key)) {
        result.messages.push_back(std::move(r).value());
      } else {
        ++result.hash_collisions;
      }
    }
    if (!result.messages.empty() || !oldest_time || *oldest_time < begin) break;
    round_end = *oldest_time - 1;
  }
  return result;
}

Result<std::vector<LoadedRecord>> LookupByUniqKey(const IndexService& index,
                                                  const RecordLoader& load, std::string_view topic,
                                                  std::string_view uniq_key) {
  RS_ASSIGN_OR_RETURN(QueryMessageResult q,
                      QueryMessage(index, load, topic, uniq_key, index.options().max_query_results,
                                   0, std::numeric_limits<int64_t>::max()));
  std::vector<LoadedRecord> out;
  for (LoadedRecord& r : q.messages) {
    if (format::FindProperty(r.record.properties, format::kPropertyUniqKey) == uniq_key) {
      out.push_back(std::move(r));
    }
  }
  return out;
}

Result<LoadedRecord> LookupByOffsetMsgId(const RecordLoader& load, std::string_view msg_id) {
  RS_ASSIGN_OR_RETURN(format::OffsetMsgId id, format::DecodeOffsetMsgId(msg_id));
  const PhysicalOffset offset(id.physical_offset);
  RS_ASSIGN_OR_RETURN(LoadedRecord r, load(offset));
  if (r.record.physical_offset != id.physical_offset) {
    return Corruption("the record at commit-log offset " + std::to_string(offset.value()) +
                      " says it is at " + std::to_string(r.record.physical_offset));
  }
  return r;
}

}  // namespace rocketstore
