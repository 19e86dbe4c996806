#include "store/checkpoint/checkpoint.h"

#include <string_view>
#include <vector>

#include "io/atomic_file.h"
#include "store/layout/layout.h"

namespace rocketstore {

Result<std::unique_ptr<Checkpoint>> Checkpoint::Open(FileSystem& fs, const std::string& dir) {
  auto cp = std::unique_ptr<Checkpoint>(new Checkpoint(fs, dir));
  const std::string path = layout::CheckpointPath(dir);
  if (!fs.Exists(path)) return cp;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(path, OpenOptions{}));
  std::vector<uint8_t> page(format::kCheckpointFileSize + 1);
  RS_ASSIGN_OR_RETURN(size_t n, file->PRead(0, page.data(), page.size()));
  if (n != format::kCheckpointFileSize) {
    cp->load_state_ = LoadState::kCorrupt;
    return cp;
  }
  page.resize(n);
  format::CheckpointRecord r;
  switch (format::DecodeCheckpoint(page, &r)) {
    case format::CheckpointDecode::kWithExtension:
      cp->load_state_ = LoadState::kVerified;
      break;
    case format::CheckpointDecode::kRocketMqOnly:
      cp->load_state_ = LoadState::kRocketMq;
      break;
    case format::CheckpointDecode::kStaleExtension:
      cp->load_state_ = LoadState::kStaleExtension;
      break;
    case format::CheckpointDecode::kCorruptExtension:
      cp->load_state_ = LoadState::kCorrupt;
      break;
  }
  cp->record_ = r;
  return cp;
}

std::string Checkpoint::LoadStateDescription() const {
  switch (load_state_) {
    case LoadState::kMissing:
      return "no checkpoint file";
    case LoadState::kRocketMq:
      return "checkpoint without rocketstore extension (RocketMQ)";
    case LoadState::kVerified:
      return "checkpoint verified";
    case LoadState::kStaleExtension:
      return "checkpoint rewritten by RocketMQ since rocketstore's extension: RocketMQ's "
             "fields used, stale extension ignored";
    case LoadState::kCorrupt:
      return "checkpoint corrupt (wrong size or CRC mismatch), ignored";
  }
  return "?";
}

format::CheckpointRecord Checkpoint::Get() const {
  std::lock_guard<std::mutex> l(mu_);
  return record_;
}

void Checkpoint::SetPhysicMsgTimestamp(int64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  record_.physic_msg_timestamp = v;
}
void Checkpoint::SetLogicsMsgTimestamp(int64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  record_.logics_msg_timestamp = v;
}
void Checkpoint::SetIndexMsgTimestamp(int64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  record_.index_msg_timestamp = v;
}
void Checkpoint::SetDurableCommitLogOffset(int64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  record_.durable_commit_log_offset = v;
}
void Checkpoint::SetDispatchedCommitLogOffset(int64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  record_.dispatched_commit_log_offset = v;
}

Status Checkpoint::Flush() {
  std::lock_guard<std::mutex> serial(flush_mu_);
  uint8_t page[format::kCheckpointFileSize];
  format::EncodeCheckpoint(Get(), page);
  // checkpoint.tmp, synced, renamed over checkpoint, directory synced. No .bak: RocketMQ
  // keeps none, and recovery copes with a missing or corrupt checkpoint.
  return WriteFileAtomically(fs_, layout::CheckpointPath(dir_),
                             std::string_view(reinterpret_cast<const char*>(page), sizeof(page)),
                             AtomicWriteOptions{.keep_backup = false});
}

Status CreateAbortMarker(FileSystem& fs, const std::string& dir) {
  OpenOptions oo;
  oo.create = oo.writable = true;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(layout::AbortPath(dir), oo));
  RS_RETURN_IF_ERROR(file->Truncate(0));
  // No boot id: the marker still marks a running store; a crash then counts as a power
  // loss at the next start.
  if (Result<std::string> boot = fs.BootId(); boot.ok() && !boot->empty()) {
    RS_RETURN_IF_ERROR(file->PWrite(0, boot->data(), boot->size()));
    RS_RETURN_IF_ERROR(file->Sync());
  }
  file.reset();
  return fs.SyncDir(dir);
}

Status RemoveAbortMarker(FileSystem& fs, const std::string& dir) {
  const std::string path = layout::AbortPath(dir);
  if (!fs.Exists(path)) return Status::OK();
  RS_RETURN_IF_ERROR(fs.RemoveFile(path));
  return fs.SyncDir(dir);
}

Status DistrustAbortMarker(FileSystem& fs, const std::string& dir) {
  const std::string path = layout::AbortPath(dir);
  if (!fs.Exists(path)) return Status::OK();
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(path, OpenOptions{.writable = true}));
  // No sync: a process crash keeps the truncation (page cache), and after a power loss
  // the boot id differs anyway. (It may run on a failing disk, under the caller's locks.)
  return file->Truncate(0);
}

LastExit ReadLastExit(FileSystem& fs, const std::string& dir) {
  const std::string path = layout::AbortPath(dir);
  if (!fs.Exists(path)) return LastExit::kClean;
  Result<std::string> boot = fs.BootId();
  if (!boot.ok() || boot->empty()) return LastExit::kCrash;
  auto file = fs.OpenFile(path, OpenOptions{});
  if (!file.ok()) return LastExit::kCrash;
  std::string content(boot->size() + 1, '\0');
  Result<size_t> n = (*file)->PRead(0, content.data(), content.size());
  if (!n.ok()) return LastExit::kCrash;
  content.resize(*n);
  return content == *boot ? LastExit::kProcessCrash : LastExit::kCrash;
}

const char* LastExitName(LastExit e) {
  switch (e) {
    case LastExit::kClean:
      return "clean shutdown";
    case LastExit::kProcessCrash:
      return "process crash (same boot: page cache intact)";
    case LastExit::kCrash:
      return "crash (assumed power loss)";
  }
  return "?";
}

Result<std::unique_ptr<FileLock>> LockStoreDirectory(FileSystem& fs, const std::string& dir) {
  auto lock = fs.LockFile(layout::LockPath(dir));
  if (!lock.ok() && lock.status().code() == StatusCode::kAlreadyExists) {
    return AlreadyExists("store directory " + dir +
                         " is in use by another rocketstore (or RocketMQ) process: its `lock` "
                         "file is locked. Stop that process or choose another --store");
  }
  return lock;
}

}  // namespace rocketstore
