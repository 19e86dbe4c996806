#include "store/consume_queue/consume_queue.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "store/format/message_record.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"

namespace rocketstore {
namespace {

using format::ConsumeQueueUnit;
using format::DecodeConsumeQueueUnit;
using format::EncodeConsumeQueueUnit;

constexpr int64_t kUnit = ConsumeQueue::kUnitSize;
// RocketMQ sizes files with a Java int.
constexpr int64_t kMaxFileBytes = std::numeric_limits<int32_t>::max();

bool IsZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

std::string UnitsText(int64_t logic_bytes) { return std::to_string(logic_bytes / kUnit); }

}  // namespace

Status ValidateTopicDirName(std::string_view topic) {
  if (topic.empty()) return InvalidArgument("topic name is empty");
  if (topic == "." || topic == "..") {
    return InvalidArgument("topic name '" + std::string(topic) + "' is not a directory name");
  }
  if (topic.size() > format::kMaxTopicLength) {
    return InvalidArgument("topic name is " + std::to_string(topic.size()) + " bytes; at most " +
                           std::to_string(format::kMaxTopicLength) + " are allowed");
  }
  if (topic.find('/') != std::string_view::npos || topic.find('\0') != std::string_view::npos) {
    return InvalidArgument("topic name contains '/' or NUL: it would not be one directory");
  }
  return Status::OK();
}

std::string ConsumeQueueDir(const std::string& root_dir, std::string_view topic, int32_t queue_id) {
  return layout::ConsumeQueueDir(root_dir, topic, queue_id);
}

namespace {
MappedFileQueue::Options QueueOptions(const ConsumeQueue::Options& options) {
  MappedFileQueue::Options o;
  o.file_size = options.units_per_file * ConsumeQueue::kUnitSize;
  o.file.reserve_chunk_bytes = options.reserve_chunk_bytes;
  o.prefault_window_bytes = options.reserve_chunk_bytes;  // PrepareNext is not used
  return o;
}
}  // namespace

ConsumeQueue::ConsumeQueue(FileSystem& fs, std::string dir, std::string topic, int32_t queue_id,
                           const Options& options)
    : fs_(fs),
      dir_(std::move(dir)),
      topic_(std::move(topic)),
      queue_id_(queue_id),
      units_per_file_(options.units_per_file),
      queue_options_(QueueOptions(options)),
      files_(std::make_shared<MappedFileQueue>(fs, dir_, queue_options_)) {}

std::shared_ptr<MappedFileQueue> ConsumeQueue::queue() const {
  std::lock_guard<std::mutex> l(queue_mu_);
  return files_;
}

Result<std::unique_ptr<ConsumeQueue>> ConsumeQueue::Open(FileSystem& fs,
                                                         const std::string& root_dir,
                                                         std::string_view topic, int32_t queue_id,
                                                         const Options& options) {
  RS_RETURN_IF_ERROR(ValidateTopicDirName(topic));
  if (queue_id < 0) return InvalidArgument("negative queue id " + std::to_string(queue_id));
  if (options.units_per_file <= 0 || options.units_per_file > kMaxFileBytes / kUnit) {
    return InvalidArgument("units_per_file must be in [1, " +
                           std::to_string(kMaxFileBytes / kUnit) + "], not " +
                           std::to_string(options.units_per_file));
  }
  if (options.reserve_chunk_bytes <= 0) return InvalidArgument("reserve_chunk_bytes must be > 0");
  auto cq = std::unique_ptr<ConsumeQueue>(new ConsumeQueue(
      fs, ConsumeQueueDir(root_dir, topic, queue_id), std::string(topic), queue_id, options));
  if (Status s = cq->files_->Load(); !s.ok()) {
    // Most likely files of another size (RocketMQ's mappedFileSizeConsumeQueue): say so.
    return s.WithContext("load consume queue " + cq->dir() + " (files of this store are " +
                         std::to_string(cq->file_bytes()) +
                         " bytes; a store written with another mappedFileSizeConsumeQueue needs "
                         "that size configured)");
  }
  std::lock_guard<std::mutex> l(cq->write_mu_);
  cq->recovered_ = cq->files_->empty();  // nothing to recover
  cq->min_logic_offset_.store(cq->files_->MinOffset().value(), std::memory_order_release);
  return cq;
}

// ---- readers ---------------------------------------------------------------------------

int64_t ConsumeQueue::MaxLogicBytes(const MappedFileQueue& q) {
  std::shared_ptr<MappedFile> last = q.LastFile();
  if (!last) return 0;
  // committed, not wrote: readers may look at every unit below what this returns.
  return last->start_offset().value() + last->committed_position();
}

QueueOffset ConsumeQueue::MinOffset() const {
  const int64_t min = min_logic_offset_.load(std::memory_order_acquire);
  return QueueOffset(std::min(min, MaxLogicBytes(*queue())) / kUnit);
}

QueueOffset ConsumeQueue::MaxOffset() const { return QueueOffset(MaxLogicBytes(*queue()) / kUnit); }

bool ConsumeQueue::ReadUnitAt(const MappedFileQueue& q, int64_t pos, Unit* unit) {
  std::shared_ptr<MappedFile> file = q.FindFile(PhysicalOffset(pos));
  if (!file) return false;
  const int64_t in_file = pos - file->start_offset().value();
  if (in_file + kUnit > file->committed_position()) return false;
  *unit = DecodeConsumeQueueUnit(file->data() + in_file);
  return true;
}

Result<ConsumeQueue::UnitRange> ConsumeQueue::GetUnits(QueueOffset from, int max_units) const {
  if (max_units <= 0) return InvalidArgument("max_units must be > 0");
  const std::shared_ptr<MappedFileQueue> q = queue();
  const int64_t max = MaxLogicBytes(*q);
  if (from.value() < 0 || from.value() >= max / kUnit) {
    return OutOfRange(topic_ + "-" + std::to_string(queue_id_) + ": queue offset " +
                      std::to_string(from.value()) + " is outside [0, " + UnitsText(max) + ")");
  }
  const int64_t pos = from.value() * kUnit;
  if (pos < min_logic_offset_.load(std::memory_order_acquire)) {
    return NotFound(topic_ + "-" + std::to_string(queue_id_) + ": queue offset " +
                    std::to_string(from.value()) + " is below the min offset " +
                    UnitsText(min_logic_offset_.load(std::memory_order_acquire)));
  }
  std::shared_ptr<MappedFile> file = q->FindFile(PhysicalOffset(pos));
  if (!file) {
    return NotFound(topic_ + "-" + std::to_string(queue_id_) + ": no file holds queue offset " +
                    std::to_string(from.value()));
  }
  const int64_t in_file = pos - file->start_offset().value();
  const int64_t readable = file->committed_position() - in_file;
  if (readable < kUnit) {
    return NotFound(topic_ + "-" + std::to_string(queue_id_) + ": queue offset " +
                    std::to_string(from.value()) + " is not readable yet");
  }
  const int64_t n = std::min<int64_t>(readable / kUnit, max_units);
  UnitRange range;
  range.first = from;
  range.bytes = std::span<const uint8_t>(file->data() + in_file, static_cast<size_t>(n * kUnit));
  range.file = std::move(file);
  return range;
}

Result<ConsumeQueue::Unit> ConsumeQueue::GetUnit(QueueOffset offset) const {
  RS_ASSIGN_OR_RETURN(UnitRange range, GetUnits(offset, 1));
  return range[0];
}

QueueOffset ConsumeQueue::RollNextFile(QueueOffset offset) const {
  return QueueOffset(offset.value() + units_per_file_ - offset.value() % units_per_file_);
}

Result<QueueOffset> ConsumeQueue::OffsetByTime(int64_t timestamp,
                                               const StoreTimeFn& store_time_of) const {
  const std::shared_ptr<MappedFileQueue> q = queue();
  const int64_t max_unit = MaxLogicBytes(*q) / kUnit;
  const int64_t min_unit =
      std::min(min_logic_offset_.load(std::memory_order_acquire) / kUnit, max_unit);
  // Whether unit i is older than `timestamp`. Units that are gone (deleted meanwhile,
  // record removed from the commit log) are older than anything still stored.
  auto older = [&](int64_t i) -> Result<bool> {
    Unit unit;
    if (!ReadUnitAt(*q, i * kUnit, &unit) || unit.IsBlank() || !unit.IsValid()) return true;
    Result<int64_t> t = store_time_of(unit.offset, unit.size);
    if (!t.ok()) {
      if (t.status().code() == StatusCode::kNotFound) return true;
      return t.status().WithContext("store time of queue offset " + std::to_string(i));
    }
    return *t < timestamp;
  };
  // Invariant: unit lo is older (lo = min - 1 stands for "before the queue"), unit hi is
  // not (hi = max stands for "after the queue").
  int64_t lo = min_unit - 1;
  int64_t hi = max_unit;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    RS_ASSIGN_OR_RETURN(bool is_older, older(mid));
    if (is_older) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return QueueOffset(hi);
}

Result<QueueOffset> ConsumeQueue::OffsetByTimeRocketMq498(int64_t timestamp,
                                                          const StoreTimeFn& store_time_of) const {
  const std::shared_ptr<MappedFileQueue> q = queue();
  const std::vector<std::shared_ptr<MappedFile>> files = q->Files();
  if (files.empty()) return QueueOffset(0);
  // Store time of the unit at byte `pos` of the queue; nullopt when it has none (record
  // gone, blank or invalid unit): Java's "phyOffset < minPhysicOffset" branch.
  auto time_at = [&](int64_t pos) -> Result<std::optional<int64_t>> {
    Unit unit;
    if (!ReadUnitAt(*q, pos, &unit) || unit.IsBlank() || !unit.IsValid()) {
      return std::optional<int64_t>();
    }
    Result<int64_t> t = store_time_of(unit.offset, unit.size);
    if (!t.ok()) {
      if (t.status().code() == StatusCode::kNotFound) return std::optional<int64_t>();
      return t.status().WithContext("store time of queue offset " + std::to_string(pos / kUnit));
    }
    return std::optional<int64_t>(*t);
  };
  // 1. The file (getMappedFileByTime), its last unit's store time standing for its mtime.
  std::shared_ptr<MappedFile> file = files.back();
  for (const auto& f : files) {
    const int64_t committed = f->committed_position();
    if (committed < kUnit) {
      file = f;  // empty: "modified now"
      break;
    }
    RS_ASSIGN_OR_RETURN(std::optional<int64_t> last,
                        time_at(f->start_offset().value() + committed / kUnit * kUnit - kUnit));
    if (last && *last >= timestamp) {
      file = f;
      break;
    }
  }
  // 2. Java's binary search over the file's readable units.
  const int64_t from = file->start_offset().value();
  const int64_t min_logic = min_logic_offset_.load(std::memory_order_acquire);
  int64_t low = min_logic > from ? min_logic - from : 0;
  int64_t high = file->committed_position() / kUnit * kUnit - kUnit;
  int64_t target = -1, left = -1, right = -1;
  int64_t left_time = -1, right_time = -1;
  while (high >= low) {
    const int64_t mid = (low + high) / (2 * kUnit) * kUnit;
    RS_ASSIGN_OR_RETURN(std::optional<int64_t> t, time_at(from + mid));
    if (!t) {
      low = mid + kUnit;
      left = mid;
    } else if (*t == timestamp) {
      target = mid;
      break;
    } else if (*t > timestamp) {
      high = mid - kUnit;
      right = mid;
      right_time = *t;
    } else {
      low = mid + kUnit;
      left = mid;
      left_time = *t;
    }
  }
  // 3. The exact match, else the closer neighbour.
  int64_t offset = target;
  if (offset == -1) {
    if (left_time == -1) {
      offset = right;
    } else if (right_time == -1) {
      offset = left;
    } else {
      offset = std::abs(timestamp - left_time) > std::abs(timestamp - right_time) ? right : left;
    }
  }
  return QueueOffset((from + offset) / kUnit);
}

// ---- writer ----------------------------------------------------------------------------

Status ConsumeQueue::PutUnit(PhysicalOffset offset, int32_t size, int64_t tags_code,
                             QueueOffset queue_offset) {
  if (offset.value() < 0 || size <= 0 || queue_offset.value() < 0) {
    return InvalidArgument("bad consume queue unit: offset " + std::to_string(offset.value()) +
                           ", size " + std::to_string(size) + ", queue offset " +
                           std::to_string(queue_offset.value()));
  }
  if (offset.value() > std::numeric_limits<int64_t>::max() - size ||
      queue_offset.value() > (std::numeric_limits<int64_t>::max() - file_bytes()) / kUnit) {
    return InvalidArgument("consume queue unit offsets overflow");
  }
  const Unit unit{offset, size, tags_code};
  std::lock_guard<std::mutex> l(write_mu_);
  if (!recovered_) {
    return FailedPrecondition(dir() + ": consume queue loaded but not recovered; call Recover()");
  }
  const int64_t max_physic = max_physic_offset_.load(std::memory_order_relaxed);
  if (unit.end().value() <= max_physic) return Status::OK();  // already dispatched

  const int64_t expected = queue_offset.value() * kUnit;
  std::shared_ptr<MappedFile> last = files_->LastFile();
  if (!last) return StartQueueLocked(expected, &unit);
  const int64_t current = last->start_offset().value() + last->wrote_position();
  if (expected < current) return Status::OK();  // this position is already written
  if (last->wrote_position() == 0 && files_->file_count() == 1) {
    // The queue holds no unit yet (a kept empty first file, or an earlier start that
    // failed after creating its file): it may start anywhere at or after its end.
    if (expected >= last->end_offset().value()) RS_RETURN_IF_ERROR(files_->RemoveAll());
    return StartQueueLocked(expected, &unit);
  }
  if (expected > current) {
    // RocketMQ logs "[BUG]logic queue order maybe wrong" and appends at `current`, which
    // puts every later unit at the wrong queue offset. Refuse instead.
    return FailedPrecondition(dir() + ": unit for queue offset " +
                              std::to_string(queue_offset.value()) +
                              " would leave a gap: the queue ends at " + UnitsText(current));
  }
  if (max_physic >= 0 && offset.value() < max_physic) {
    return FailedPrecondition(dir() + ": record at " + std::to_string(offset.value()) +
                              " starts before the end of the last unit's record " +
                              std::to_string(max_physic));
  }
  // The last file continues the queue (current is its end): while it has room it is the
  // writable one (as GetWritableFile would answer, without its locks).
  if (!last->IsFull()) return AppendLocked(last, unit);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> file,
                      files_->GetWritableFile(PhysicalOffset(current)));
  if (file->start_offset().value() + file->wrote_position() != expected) {
    return Internal(dir() + ": writable file does not continue the queue");
  }
  return AppendLocked(file, unit);
}

Status ConsumeQueue::StartQueueLocked(int64_t start_pos, const Unit* unit) {
  const int64_t file_start = start_pos - start_pos % file_bytes();
  // Set before the file appears, so readers never see the blank units as readable.
  min_logic_offset_.store(start_pos, std::memory_order_release);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<MappedFile> file,
                      files_->GetWritableFile(PhysicalOffset(file_start)));
  if (file->start_offset().value() != file_start || file->wrote_position() != 0) {
    return Internal(dir() + ": new consume queue file is not empty at " +
                    std::to_string(file_start));
  }
  const int64_t blanks = start_pos - file_start;
  const int64_t total = blanks + (unit != nullptr ? kUnit : 0);
  if (total == 0) return Status::OK();
  RS_RETURN_IF_ERROR(file->Reserve(total));
  uint8_t* data = file->data();
  for (int64_t pos = 0; pos < blanks; pos += kUnit) {
    EncodeConsumeQueueUnit(format::kBlankUnit, data + pos);
  }
  if (unit != nullptr) EncodeConsumeQueueUnit(*unit, data + blanks);
  // One publication for the blank units and the unit: readers see both or neither.
  file->Advance(total, 0);
  if (unit != nullptr) max_physic_offset_.store(unit->end().value(), std::memory_order_release);
  return Status::OK();
}

Status ConsumeQueue::AppendLocked(const std::shared_ptr<MappedFile>& file, const Unit& unit) {
  const int64_t pos = file->wrote_position();
  RS_RETURN_IF_ERROR(file->Reserve(pos + kUnit));
  EncodeConsumeQueueUnit(unit, file->data() + pos);
  file->Advance(pos + kUnit, 0);  // release store: the 20 bytes are visible first
  max_physic_offset_.store(unit.end().value(), std::memory_order_release);
  return Status::OK();
}

Status ConsumeQueue::InitializeWithOffset(QueueOffset offset) {
  if (offset.value() < 0 ||
      offset.value() > (std::numeric_limits<int64_t>::max() - file_bytes()) / kUnit) {
    return InvalidArgument("bad queue offset " + std::to_string(offset.value()));
  }
  std::lock_guard<std::mutex> l(write_mu_);
  RS_RETURN_IF_ERROR(files_->RemoveAll());
  max_physic_offset_.store(-1, std::memory_order_release);
  recovered_ = true;
  RS_RETURN_IF_ERROR(StartQueueLocked(offset.value() * kUnit, nullptr));
  RS_ASSIGN_OR_RETURN(PhysicalOffset flushed, files_->Flush(FlushMethod::kMsync));
  (void)flushed;
  return Status::OK();
}

Status ConsumeQueue::Destroy() {
  std::lock_guard<std::mutex> l(write_mu_);
  RS_RETURN_IF_ERROR(files_->RemoveAll());
  min_logic_offset_.store(0, std::memory_order_release);
  max_physic_offset_.store(-1, std::memory_order_release);
  recovered_ = true;
  return Status::OK();
}

// ---- startup ---------------------------------------------------------------------------

Status ConsumeQueue::SetEndLocked(int64_t end) {
  std::shared_ptr<MappedFile> first = files_->FirstFile();
  if (!first) return Status::OK();
  if (end <= first->start_offset().value()) {
    // No unit survives. Keep the first file, empty (RocketMQ's truncateDirtyFiles keeps
    // the file that starts at the end), so MaxOffset() still says where the queue was.
    RS_RETURN_IF_ERROR(files_->TruncateTo(first->end_offset()));
    first->SetPositions(0);
    return Status::OK();
  }
  RS_RETURN_IF_ERROR(files_->TruncateTo(PhysicalOffset(end)));
  // TruncateTo leaves a file that ends exactly at `end` as it is; set it explicitly.
  std::shared_ptr<MappedFile> last = files_->LastFile();
  last->SetPositions(end - last->start_offset().value());
  return Status::OK();
}

Status ConsumeQueue::ZeroStaleTailLocked(int64_t end) {
  std::shared_ptr<MappedFile> file = files_->FindFile(PhysicalOffset(end));
  if (!file) return Status::OK();
  uint8_t* data = file->data();
  bool changed = false;
  // Units past the end that still look valid (dropped by truncation, or left by a write
  // that was torn) would rejoin the queue if appends later reached them and a crash
  // followed before they were overwritten: clear the whole run of non-zero slots.
  for (int64_t pos = end - file->start_offset().value(); pos + kUnit <= file_bytes();
       pos += kUnit) {
    if (IsZero(data + pos, format::kConsumeQueueUnitSize)) break;
    std::memset(data + pos, 0, format::kConsumeQueueUnitSize);
    changed = true;
  }
  if (changed) RS_RETURN_IF_ERROR(file->SyncWholeFile());
  return Status::OK();
}

void ConsumeQueue::ResetDerivedStateLocked(int64_t min_floor) {
  const int64_t max = MaxLogicBytes(*files_);
  int64_t last_end = -1;
  Unit unit;
  // Blank units only precede every real unit: a blank last unit means there is none.
  if (max > 0 && ReadUnitAt(*files_, max - kUnit, &unit) && unit.IsValid() && !unit.IsBlank()) {
    last_end = unit.end().value();
  }
  max_physic_offset_.store(last_end, std::memory_order_release);
  min_logic_offset_.store(std::clamp<int64_t>(min_floor, 0, max), std::memory_order_release);
}

Status ConsumeQueue::Recover() {
  std::lock_guard<std::mutex> l(write_mu_);
  std::vector<std::shared_ptr<MappedFile>> files = files_->Files();
  if (files.empty()) {
    ResetDerivedStateLocked(0);
    recovered_ = true;
    return Status::OK();
  }
  const size_t scan_first = files.size() >= 3 ? files.size() - 3 : 0;
  const int64_t scan_start = files[scan_first]->start_offset().value();
  int64_t end = 0;
  for (size_t index = scan_first;; ++index) {
    const MappedFile& file = *files[index];
    int64_t pos = 0;
    while (pos < file_bytes() && DecodeConsumeQueueUnit(file.data() + pos).IsValid()) {
      pos += kUnit;
    }
    if (pos == file_bytes() && index + 1 < files.size()) continue;
    end = file.start_offset().value() + pos;
    break;
  }
  RS_RETURN_IF_ERROR(SetEndLocked(end));
  RS_RETURN_IF_ERROR(ZeroStaleTailLocked(end));
  // After a process crash the recovered units may be in the page cache only; they count
  // as flushed from now on, so make them durable.
  for (const auto& file : files_->Files()) {
    if (file->start_offset().value() >= scan_start) RS_RETURN_IF_ERROR(file->SyncWholeFile());
  }
  // The minimum starts at the first file, past the blank pre-fill units.
  std::shared_ptr<MappedFile> first = files_->FirstFile();
  int64_t min =
      std::max(min_logic_offset_.load(std::memory_order_relaxed), first->start_offset().value());
  Unit unit;
  while (ReadUnitAt(*files_, min, &unit) && unit.IsBlank()) min += kUnit;
  ResetDerivedStateLocked(min);
  recovered_ = true;
  return Status::OK();
}

Status ConsumeQueue::TruncateDirty(PhysicalOffset commit_log_end) {
  std::lock_guard<std::mutex> l(write_mu_);
  recovered_ = true;
  std::vector<std::shared_ptr<MappedFile>> files = files_->Files();
  if (files.empty()) {
    ResetDerivedStateLocked(0);
    return Status::OK();
  }
  // Drop whole files, from the last, while their first unit is at or past the end. A file
  // with nothing written (the kept empty first file) has no unit to drop.
  size_t keep = files.size();
  while (keep > 0 && files[keep - 1]->wrote_position() > 0 &&
         DecodeConsumeQueueUnit(files[keep - 1]->data()).offset >= commit_log_end) {
    --keep;
  }
  if (keep == 0) {
    RS_RETURN_IF_ERROR(files_->TruncateTo(files.front()->start_offset()));  // removes all
    ResetDerivedStateLocked(0);
    return Status::OK();
  }
  const MappedFile& file = *files[keep - 1];
  const int64_t limit = std::min(file_bytes(), file.wrote_position());
  int64_t pos = 0;
  while (pos < limit) {
    const Unit unit = DecodeConsumeQueueUnit(file.data() + pos);
    if (!unit.IsValid() || unit.offset >= commit_log_end) break;
    pos += kUnit;
  }
  const int64_t end = file.start_offset().value() + pos;
  RS_RETURN_IF_ERROR(SetEndLocked(end));
  RS_RETURN_IF_ERROR(ZeroStaleTailLocked(end));
  if (auto last = files_->LastFile()) RS_RETURN_IF_ERROR(last->SyncWholeFile());
  ResetDerivedStateLocked(min_logic_offset_.load(std::memory_order_relaxed));
  return Status::OK();
}

// ---- flusher ---------------------------------------------------------------------------

Result<PhysicalOffset> ConsumeQueue::Flush(FlushMethod method) { return queue()->Flush(method); }

// ---- cleaner ---------------------------------------------------------------------------

void ConsumeQueue::CorrectMinOffset(PhysicalOffset commit_log_min) {
  std::lock_guard<std::mutex> l(write_mu_);
  CorrectMinOffsetLocked(commit_log_min.value());
}

void ConsumeQueue::CorrectMinOffsetLocked(int64_t commit_log_min) {
  std::shared_ptr<MappedFile> first = files_->FirstFile();
  if (!first) return;
  const int64_t max_unit = MaxLogicBytes(*files_) / kUnit;
  const int64_t lo_unit =
      std::max(min_logic_offset_.load(std::memory_order_relaxed), first->start_offset().value()) /
      kUnit;
  if (lo_unit >= max_unit) return;  // no unit at or after the minimum
  // Physical offsets increase along the queue (blank units first), so "points below the
  // commit-log minimum" is true for a prefix of the queue.
  auto below = [&](int64_t i) {
    Unit unit;
    if (!ReadUnitAt(*files_, i * kUnit, &unit)) return true;
    return unit.IsBlank() || unit.offset.value() < commit_log_min;
  };
  int64_t result;
  if (!below(lo_unit)) {
    result = lo_unit;
  } else if (below(max_unit - 1)) {
    result = max_unit;  // nothing valid is left: min = max (5.x)
  } else {
    int64_t lo = lo_unit;       // below
    int64_t hi = max_unit - 1;  // not below
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (below(mid)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    result = hi;
  }
  min_logic_offset_.store(result * kUnit, std::memory_order_release);
}

Status ConsumeQueue::DeleteFilesBelow(PhysicalOffset commit_log_min) {
  std::lock_guard<std::mutex> l(write_mu_);
  std::vector<std::shared_ptr<MappedFile>> files = files_->Files();
  size_t count = 0;
  for (size_t i = 0; i + 1 < files.size(); ++i) {  // never the last file
    const MappedFile& file = *files[i];
    if (file.committed_position() < file_bytes()) break;  // not full: cannot happen
    const Unit last_unit = DecodeConsumeQueueUnit(file.data() + file_bytes() - kUnit);
    if (!last_unit.IsBlank() && last_unit.offset >= commit_log_min) break;
    ++count;
  }
  if (count > 0) RS_RETURN_IF_ERROR(RemoveLeadingFilesLocked(count));
  CorrectMinOffsetLocked(commit_log_min.value());
  return Status::OK();
}

Status ConsumeQueue::RemoveLeadingFilesLocked(size_t count) {
  // The written units are made durable first, so a deletion never leaves the queue's
  // durable end behind what readers saw. Readers keep their mapped files; the last file
  // (the writer's) is never removed.
  RS_ASSIGN_OR_RETURN(PhysicalOffset flushed, files_->Flush(FlushMethod::kMsync));
  (void)flushed;
  const std::vector<std::shared_ptr<MappedFile>> files = files_->Files();
  if (files.size() < 2 || count == 0) return Status::OK();
  const size_t n = std::min(count, files.size() - 1);
  RS_ASSIGN_OR_RETURN(int removed, files_->RemoveFilesBefore(files[n - 1]->end_offset()));
  (void)removed;
  return Status::OK();
}

}  // namespace rocketstore
