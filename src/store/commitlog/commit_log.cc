#include "store/commitlog/commit_log.h"

#include <algorithm>

#include "base/coding.h"
#include "base/crc32.h"

namespace rocketstore {
namespace {

constexpr size_t kMaxPropertiesBytes = 32767;
// The encoded record may exceed the body limit by this much (topic, properties, fields).
constexpr int64_t kRecordOverheadAllowance = 64 * 1024;
// append_with_pwrite: the write buffer is written out (without a flush) past this size.
constexpr size_t kMaxPendingBytes = 4 << 20;

MappedFileQueue::Options QueueOptions(const CommitLogOptions& o) {
  MappedFileQueue::Options q;
  q.file_size = o.segment_size;
  q.file.reserve_chunk_bytes = o.reserve_chunk_bytes;
  q.prefault_window_bytes = o.prefault_window_bytes;
  q.populate_pages = o.populate_pages;
  q.file.readahead_while_writing = o.readahead_while_writing;
  q.file.zero_fill_ahead = o.append_with_pwrite && o.zero_fill_ahead;
  q.resident_window_bytes = o.resident_window_bytes;
  return q;
}

}  // namespace

CommitLog::CommitLog(FileSystem& fs, const CommitLogOptions& options, Clock& clock,
                     StoreHealth& health)
    : options_(options),
      clock_(clock),
      health_(health),
      files_(fs, options.dir, QueueOptions(options)) {}

Result<std::unique_ptr<CommitLog>> CommitLog::Open(FileSystem& fs, const CommitLogOptions& options,
                                                   Clock& clock, StoreHealth& health) {
  if (options.segment_size < 64 || options.segment_size > INT32_MAX) {
    return InvalidArgument("commit log segment size must be between 64 bytes and 2 GiB, got " +
                           std::to_string(options.segment_size));
  }
  auto log = std::unique_ptr<CommitLog>(new CommitLog(fs, options, clock, health));
  RS_RETURN_IF_ERROR(log->files_.Load().WithContext("loading commit log " + options.dir));
  return log;
}

PutMessageResult CommitLog::Reject(PutMessageStatus status, std::string error) const {
  PutMessageResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

bool CommitLog::IsOsPageCacheBusy() const {
  const int64_t begin = begin_time_in_lock_.load(std::memory_order_relaxed);
  if (begin == 0) return false;
  const int64_t held = clock_.NowMillis() - begin;
  return held > options_.os_page_cache_busy_millis && held < 10000000;
}

PutMessageResult CommitLog::CheckStoreState() const {
  if (!health_.Writable()) {
    return Reject(PutMessageStatus::kServiceNotAvailable,
                  "the store does not accept writes: " + health_.Reason());
  }
  if (IsOsPageCacheBusy()) {
    return Reject(PutMessageStatus::kOsPageCacheBusy,
                  "the commit log append lock has been held for over " +
                      std::to_string(options_.os_page_cache_busy_millis) +
                      " ms (the OS page cache is busy); retry later");
  }
  PutMessageResult ok;
  ok.status = PutMessageStatus::kPutOk;
  return ok;
}

PutMessageResult CommitLog::Put(const format::MessageToStore& message) {
  return PutBatch(std::span<const format::MessageToStore>(&message, 1));
}

PutMessageResult CommitLog::PutBatch(std::span<const format::MessageToStore> messages) {
  if (PutMessageResult state = CheckStoreState(); !state.ok()) return state;
  if (messages.empty()) return Reject(PutMessageStatus::kMessageIllegal, "empty batch");

  // Validation and CRCs outside the lock.
  constexpr size_t kInlineCrcs = 64;
  uint32_t inline_crcs[kInlineCrcs];
  std::vector<uint32_t> heap_crcs;
  uint32_t* crcs = inline_crcs;
  if (messages.size() > kInlineCrcs) {
    heap_crcs.resize(messages.size());
    crcs = heap_crcs.data();
  }
  int64_t total = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    const format::MessageToStore& m = messages[i];
    if (m.properties.size() > kMaxPropertiesBytes) {
      return Reject(PutMessageStatus::kPropertiesSizeExceeded,
                    "message properties are " + std::to_string(m.properties.size()) +
                        " bytes; at most 32767 fit the record's 2-byte length");
    }
    if (Status s = format::ValidateForStore(m, options_.max_message_body_bytes); !s.ok()) {
      return Reject(PutMessageStatus::kMessageIllegal, s.message());
    }
    if (i > 0 && (m.topic != messages[0].topic || m.queue_id != messages[0].queue_id)) {
      return Reject(PutMessageStatus::kMessageIllegal,
                    "all messages of a batch must have the same topic and queue");
    }
    const int64_t size = static_cast<int64_t>(format::EncodedRecordSize(m));
    if (size > static_cast<int64_t>(options_.max_message_body_bytes) + kRecordOverheadAllowance) {
      return Reject(PutMessageStatus::kMessageIllegal,
                    "encoded message of " + std::to_string(size) + " bytes exceeds the limit");
    }
    total += size;
    crcs[i] = RocketMqCrc32(m.body.data(), m.body.size());
  }
  if (total + format::kEndFileMinBlankLength > options_.segment_size) {
    return Reject(PutMessageStatus::kMessageIllegal,
                  "message of " + std::to_string(total) + " bytes cannot fit a commit log " +
                      "segment of " + std::to_string(options_.segment_size) + " bytes");
  }

  std::lock_guard<std::mutex> lock(append_mu_);
  return AppendLocked(messages, std::span<const uint32_t>(crcs, messages.size()), total);
}

Result<std::shared_ptr<MappedFile>> CommitLog::WritableSegmentLocked() {
  if (current_ && !current_->IsFull()) return current_;
  current_.reset();
  RS_ASSIGN_OR_RETURN(current_, files_.GetWritableFile(PhysicalOffset(0)));
  return current_;
}

PutMessageResult CommitLog::AppendLocked(std::span<const format::MessageToStore> messages,
                                         std::span<const uint32_t> crcs, int64_t total) {
  const int64_t now = clock_.NowMillis();
  begin_time_in_lock_.store(now, std::memory_order_relaxed);
  struct ClearBusy {
    std::atomic<int64_t>& t;
    ~ClearBusy() { t.store(0, std::memory_order_relaxed); }
  } clear_busy{begin_time_in_lock_};
  // Store timestamps never decrease along the log, even if the wall clock steps back.
  const int64_t store_ts = std::max(now, last_store_timestamp_);

  auto file_or = WritableSegmentLocked();
  if (!file_or.ok()) {
    return Reject(PutMessageStatus::kCreateMappedFileFailed,
                  "cannot create a commit log segment: " + file_or.status().ToString());
  }
  std::shared_ptr<MappedFile> file = std::move(file_or).value();

  // The fit rule (spec §2.5): the records go here only if 8 bytes remain after them.
  if (total + format::kEndFileMinBlankLength > file->remaining()) {
    const int64_t wrote = file->wrote_position();
    if (Status s = file->Reserve(wrote + format::kEndFileMinBlankLength); !s.ok()) {
      return Reject(PutMessageStatus::kServiceNotAvailable,
                    "cannot reserve disk space: " + s.ToString());
    }
    if (options_.append_with_pwrite) {
      uint8_t* blank = BufferLocked(file, wrote, format::kEndFileMinBlankLength);
      format::EncodeBlank(blank, static_cast<int32_t>(file->remaining()));
      pending_ts_ = last_store_timestamp_;
      pending_end_ = file->file_size();
      file->AdvanceWrote(file->file_size());
    } else {
      format::EncodeBlank(file->data() + wrote, static_cast<int32_t>(file->remaining()));
      file->Advance(file->file_size(), last_store_timestamp_);
    }
    file_or = WritableSegmentLocked();
    if (!file_or.ok()) {
      return Reject(PutMessageStatus::kCreateMappedFileFailed,
                    "cannot create the next commit log segment: " + file_or.status().ToString());
    }
    file = std::move(file_or).value();
  }

  const int64_t start = file->wrote_position();
  if (Status s = file->Reserve(start + total); !s.ok()) {
    return Reject(PutMessageStatus::kServiceNotAvailable,
                  "cannot reserve disk space for the message: " + s.ToString());
  }

  const format::MessageToStore& head = messages[0];
  const bool takes_offset = format::TakesQueueOffset(head.sys_flag);
  int64_t* next_queue_offset = nullptr;
  if (takes_offset) {
    auto it = queue_offsets_.find(QueueKeyView(head.topic, head.queue_id));
    if (it == queue_offsets_.end()) {
      it = queue_offsets_.emplace(QueueKey{std::string(head.topic), head.queue_id}, 0).first;
    }
    next_queue_offset = &it->second;
  }

  PutMessageResult result;
  result.status = PutMessageStatus::kPutOk;
  result.count = static_cast<int32_t>(messages.size());
  result.total_bytes = total;
  result.first.offset = file->start_offset() + start;
  result.first.store_timestamp = store_ts;
  result.first.queue_offset = QueueOffset(next_queue_offset ? *next_queue_offset : 0);

  if (options_.append_with_pwrite && pending_file_ && pending_file_ != file) {
    // The previous segment's tail (its BLANK) goes out before anything of this one.
    if (Status s = CommitPendingLocked(); !s.ok())
      return Reject(PutMessageStatus::kUnknownError, s.ToString());
  }
  uint8_t* dst =
      options_.append_with_pwrite ? BufferLocked(file, start, total) : file->data() + start;
  int64_t phys = result.first.offset.value();
  int64_t queue_offset = result.first.queue_offset.value();
  for (size_t i = 0; i < messages.size(); ++i) {
    const size_t size = format::EncodedRecordSize(messages[i]);
    format::EncodeRecord(messages[i], crcs[i], next_queue_offset ? queue_offset++ : 0, phys,
                         store_ts, dst);
    if (i == 0) result.first.size = static_cast<int32_t>(size);
    dst += size;
    phys += static_cast<int64_t>(size);
  }
  if (next_queue_offset) *next_queue_offset = queue_offset;
  last_store_timestamp_ = store_ts;
  if (options_.append_with_pwrite) {
    pending_ts_ = store_ts;
    pending_end_ = start + total;
    file->AdvanceWrote(start + total);
    // Bound the buffer: a flush that hangs must not let it grow without limit.
    if (pending_.size() >= kMaxPendingBytes) {
      if (Status s = CommitPendingLocked(); !s.ok()) {
        return Reject(PutMessageStatus::kUnknownError, s.ToString());
      }
    }
  } else {
    file->Advance(start + total, store_ts);
  }
  return result;
}

uint8_t* CommitLog::BufferLocked(const std::shared_ptr<MappedFile>& file, int64_t pos, int64_t n) {
  if (pending_.empty()) {
    pending_file_ = file;
    pending_pos_ = pos;
  }
  const size_t at = pending_.size();
  pending_.resize(at + static_cast<size_t>(n));
  return pending_.data() + at;
}

Status CommitLog::CommitPending() {
  std::lock_guard<std::mutex> lock(append_mu_);
  return CommitPendingLocked();
}

bool CommitLog::HasPending() const {
  std::lock_guard<std::mutex> lock(append_mu_);
  return !pending_.empty();
}

// Under the append lock: a commit of ~64 records is one pwrite of ~70 KB (tens of us),
// and holding the lock keeps commits in log order without more machinery.
Status CommitLog::CommitPendingLocked() {
  if (pending_.empty()) return Status::OK();
  if (Status s = pending_file_->Write(pending_pos_, pending_); !s.ok()) {
    Status error = s.WithContext("commit log write failed; the store stops accepting writes");
    health_.SetFatalIoError(error);
    return error;
  }
  pending_file_->Commit(pending_end_, pending_ts_);
  pending_.clear();
  pending_file_.reset();
  return Status::OK();
}

Result<CommitLogBytes> CommitLog::Read(PhysicalOffset offset, int32_t size) const {
  if (size <= 0) return InvalidArgument("read size must be positive");
  std::shared_ptr<MappedFile> file = files_.FindFile(offset);
  if (!file) {
    if (offset < MinOffset()) {
      return NotFound("commit log offset " + std::to_string(offset.value()) +
                      " was removed (the log now starts at " + std::to_string(MinOffset().value()) +
                      ")");
    }
    return OutOfRange("commit log offset " + std::to_string(offset.value()) + " is past the end " +
                      std::to_string(MaxOffset().value()));
  }
  const int64_t pos = offset - file->start_offset();
  if (pos + size > file->committed_position()) {
    return OutOfRange("commit log range [" + std::to_string(offset.value()) + ", +" +
                      std::to_string(size) + ") is not (completely) written");
  }
  CommitLogBytes out;
  out.bytes = std::span<const uint8_t>(file->data() + pos, static_cast<size_t>(size));
  out.file = std::move(file);
  return out;
}

Result<CommitLogBytes> CommitLog::ReadRecord(PhysicalOffset offset) const {
  RS_ASSIGN_OR_RETURN(CommitLogBytes head, Read(offset, 4));
  const int32_t size = DecodeInt32BE(head.bytes.data());
  if (size <= 0) {
    return Corruption("no record at commit log offset " + std::to_string(offset.value()) +
                      " (TOTALSIZE " + std::to_string(size) + ")");
  }
  return Read(offset, size);
}

Result<CommitLogBytes> CommitLog::ReadToSegmentEnd(PhysicalOffset offset) const {
  std::shared_ptr<MappedFile> file = files_.FindFile(offset);
  if (!file) return OutOfRange("no segment holds offset " + std::to_string(offset.value()));
  const int64_t pos = offset - file->start_offset();
  const int64_t end = file->committed_position();
  CommitLogBytes out;
  if (pos < end) {
    out.bytes = std::span<const uint8_t>(file->data() + pos, static_cast<size_t>(end - pos));
  }
  out.file = std::move(file);
  return out;
}

PhysicalOffset CommitLog::NextSegmentStart(PhysicalOffset offset) const {
  const int64_t size = options_.segment_size;
  return PhysicalOffset(offset.value() + size - offset.value() % size);
}

Status CommitLog::SetEnd(PhysicalOffset end, int64_t last_store_timestamp) {
  std::lock_guard<std::mutex> lock(append_mu_);
  current_.reset();
  RS_RETURN_IF_ERROR(files_.TruncateTo(end));
  last_store_timestamp_ = std::max(last_store_timestamp_, last_store_timestamp);
  return Status::OK();
}

QueueOffset CommitLog::NextQueueOffset(std::string_view topic, int32_t queue_id) const {
  std::lock_guard<std::mutex> lock(append_mu_);
  auto it = queue_offsets_.find(QueueKeyView(topic, queue_id));
  return QueueOffset(it == queue_offsets_.end() ? 0 : it->second);
}

void CommitLog::SetNextQueueOffset(std::string_view topic, int32_t queue_id, QueueOffset next) {
  std::lock_guard<std::mutex> lock(append_mu_);
  auto it = queue_offsets_.find(QueueKeyView(topic, queue_id));
  if (it == queue_offsets_.end()) {
    queue_offsets_.emplace(QueueKey{std::string(topic), queue_id}, next.value());
  } else {
    it->second = next.value();
  }
}

void CommitLog::RemoveQueueOffsets(std::string_view topic) {
  std::lock_guard<std::mutex> lock(append_mu_);
  std::erase_if(queue_offsets_, [topic](const auto& e) { return e.first.topic == topic; });
}

void CommitLog::ClearQueueOffsets() {
  std::lock_guard<std::mutex> lock(append_mu_);
  queue_offsets_.clear();
}

}  // namespace rocketstore
