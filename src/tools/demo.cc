#include "tools/demo.h"

#include <fmt/core.h>

#include <map>
#include <vector>

#include "base/clock.h"
#include "io/posix_file_system.h"
#include "store/commitlog/commit_log.h"
#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "store/recovery/commit_log_recovery.h"
#include "store/segment/file_names.h"

namespace rocketstore::tools {

int RunDemo(const DemoOptions& options) {
  FileSystem& fs = PosixFileSystem::Default();
  StoreHealth health;
  CommitLogOptions clo;
  clo.dir = JoinPath(options.store_dir, "commitlog");
  clo.segment_size = options.segment_size;
  auto log_or = CommitLog::Open(fs, clo, Clock::Real(), health);
  if (!log_or.ok()) {
    fmt::print(stderr, "error: cannot open the commit log: {}\n", log_or.status().ToString());
    return 1;
  }
  CommitLog& log = **log_or;

  // Find the end of what earlier runs wrote, and rebuild the per-queue offsets from it.
  CommitLogRecoveryOptions ro;
  ro.start = CommitLogRecoveryOptions::Start::kFirstSegment;
  std::map<std::pair<std::string, int32_t>, int64_t> next_offsets;
  auto report = RecoverCommitLog(log, ro, [&](PhysicalOffset, const format::RecordView& r) {
    const int tx = r.sys_flag & format::kSysFlagTransactionMask;
    if (tx == format::kTransactionNotType || tx == format::kTransactionCommit) {
      next_offsets[{std::string(r.topic), r.queue_id}] = r.queue_offset + 1;
    }
  });
  if (!report.ok()) {
    fmt::print(stderr, "error: recovery failed: {}\n", report.status().ToString());
    return 1;
  }
  for (const auto& [key, next] : next_offsets) {
    log.SetNextQueueOffset(key.first, key.second, QueueOffset(next));
  }
  fmt::print("store      {}\n", options.store_dir);
  fmt::print("recovery   {}\n\n", report->Summary());

  const auto store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
  const auto born_host = format::HostAddress::V4(127, 0, 0, 1, 50000);
  std::vector<AppendedRecord> appended;
  for (int i = 0; i < options.count; ++i) {
    format::PropertiesBuilder props;
    props.Put("TAGS", i % 2 == 0 ? "TagA" : "TagB");
    props.Put("KEYS", fmt::format("order-{}", i));
    const std::string properties = props.Build();
    const std::string body = fmt::format("hello from rocketstore, message #{}", i);
    format::MessageToStore m;
    m.topic = options.topic;
    m.queue_id = i % options.queues;
    m.body = body;
    m.properties = properties;
    m.born_timestamp = Clock::Real().NowMillis();
    m.born_host = born_host;
    m.store_host = store_host;
    PutMessageResult r = log.Put(m);
    if (!r.ok()) {
      fmt::print(stderr, "error: put failed with {}: {}\n", PutMessageStatusName(r.status),
                 r.error);
      return 1;
    }
    appended.push_back(r.first);
  }

  fmt::print("{:>12}  {:>5}  {:<22}  {:>10}  {:>5}  {:>8}  {:<32}  {}\n", "offset", "size",
             "segment file", "position", "queue", "q.offset", "msgId", "body");
  for (const AppendedRecord& a : appended) {
    auto bytes = log.ReadRecord(a.offset);
    if (!bytes.ok()) {
      fmt::print(stderr, "error: read at {} failed: {}\n", a.offset.value(),
                 bytes.status().ToString());
      return 1;
    }
    format::DecodeResult d = format::DecodeRecord(bytes->bytes, /*check_crc=*/true);
    if (d.outcome != format::DecodeOutcome::kRecord) {
      fmt::print(stderr, "error: record at {} does not decode: {}\n", a.offset.value(), d.error);
      return 1;
    }
    const int64_t segment_start = bytes->file->start_offset().value();
    fmt::print("{:>12}  {:>5}  {:<22}  {:>10}  {:>5}  {:>8}  {:<32}  {}\n", a.offset.value(),
               d.record.total_size, SegmentFileName(segment_start),
               a.offset.value() - segment_start, d.record.queue_id, d.record.queue_offset,
               format::EncodeOffsetMsgId(d.record.store_host, a.offset.value()), d.record.body);
  }
  fmt::print("\n{} messages appended; the commit log now spans [{}, {}).\n", appended.size(),
             log.MinOffset().value(), log.MaxOffset().value());
  auto flushed = log.segments().Flush(FlushMethod::kMsync);
  if (!flushed.ok()) {
    fmt::print(stderr, "error: flush failed: {}\n", flushed.status().ToString());
    return 1;
  }
  fmt::print("flushed to disk up to offset {}. Run again to append more.\n", flushed->value());
  return 0;
}

}  // namespace rocketstore::tools
