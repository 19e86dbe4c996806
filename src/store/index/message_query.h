// File: store/index/message_query.h
//
// Message lookups that combine the index with the commit log (DefaultMessageStore's
// queryMessage / lookMessageByOffset): by key, by UNIQ_KEY, by offset msgId.
//
// The index only knows key HASHES ("Aa" and "BB" hash alike, and `topic#key` is ambiguous
// when the topic or key holds '#'), so every candidate is read from the commit log and
// kept only if its topic is `topic` and its UNIQ_KEY property or one of its KEYS tokens
// is `key` (RocketMQ 4.9.8 has this check commented out and returns collisions).
//
// The commit log is reached through a RecordLoader: CommitLogRecordLoader(log) for the
// store, an in-memory one in tests. It amounts to
//   [&log](PhysicalOffset o) -> Result<LoadedRecord> {
//     RS_ASSIGN_OR_RETURN(CommitLogBytes b, log.ReadRecord(o));
//     return DecodeLoadedRecord(o, b.file, b.bytes);
//   }
// Loader errors kNotFound (segment deleted by retention), kOutOfRange (past the end) and
// kCorruption (not a record there) drop the candidate; any other error is returned.
//
// Thread-safety: as IndexService::QueryOffsets (any thread), provided the loader is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "base/offsets.h"
#include "base/result.h"
#include "store/commitlog/commit_log.h"
#include "store/format/message_record.h"
#include "store/index/index_service.h"

namespace rocketstore {

// A decoded commit-log record; `record`'s views stay valid while `keep_alive` lives.
struct LoadedRecord {
  PhysicalOffset offset;
  std::shared_ptr<const void> keep_alive;
  format::RecordView record;
};

using RecordLoader = std::function<Result<LoadedRecord>(PhysicalOffset)>;

// Decodes the record at the start of `bytes` (CRC not checked). kCorruption if it is not
// a whole message record.
Result<LoadedRecord> DecodeLoadedRecord(PhysicalOffset offset,
                                        std::shared_ptr<const void> keep_alive,
                                        std::span<const uint8_t> bytes);

// Reads records from `log` (which must outlive the loader).
RecordLoader CommitLogRecordLoader(const CommitLog& log);

// Whether `record` is in `topic` and carries `key` as its UNIQ_KEY or a KEYS token.
bool RecordHasKey(const format::RecordView& record, std::string_view topic, std::string_view key);

struct QueryMessageResult {
  std::vector<LoadedRecord> messages;  // real matches, ascending commit-log offset
  int64_t index_last_update_timestamp = 0;
  PhysicalOffset index_last_update_phy_offset;
  int hash_collisions = 0;  // candidates dropped: another key with the same hash
  int unreadable = 0;       // candidates dropped: the loader found no record
};

// queryMessage(topic, key, maxNum, begin, end): up to 3 rounds, as RocketMQ: each asks the
// index for at most min(max_num, max_query_results) candidates stored in [begin, end'],
// sorts them ascending, reads each and keeps the real matches (duplicates of one offset
// once). It stops as soon as a round matched anything, found nothing, or its oldest
// candidate is older than `begin`; otherwise the next round ends 1 ms before that oldest
// candidate's store time (RocketMQ reuses that time itself and can repeat a round).
Result<QueryMessageResult> QueryMessage(const IndexService& index, const RecordLoader& load,
                                        std::string_view topic, std::string_view key, int max_num,
                                        int64_t begin, int64_t end);

// Messages of `topic` whose UNIQ_KEY is `uniq_key` (at most max_query_results; more than
// one when a producer resent it), ascending offset. Empty if none.
Result<std::vector<LoadedRecord>> LookupByUniqKey(const IndexService& index,
                                                  const RecordLoader& load, std::string_view topic,
                                                  std::string_view uniq_key);

// The message named by an offset msgId (store/format/message_id.h): kInvalidArgument for
// a malformed id, the loader's error if nothing is there, kCorruption if the record
// there does not carry that offset.
Result<LoadedRecord> LookupByOffsetMsgId(const RecordLoader& load, std::string_view msg_id);

}  // namespace rocketstore
