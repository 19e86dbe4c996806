// File: store/common/put_message_status.h
//
// The outcome of a put, with RocketMQ's status names (spec §9.4), so the broker can map
// it to the wire response code one to one. Only kPutOk, kFlushDiskTimeout,
// kFlushSlaveTimeout and kSlaveNotAvailable mean the message is stored.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocketstore {

enum class PutMessageStatus : uint8_t {
  kPutOk,
  kFlushDiskTimeout,        // SYNC_FLUSH: not durable within syncFlushTimeout (stored)
  kFlushSlaveTimeout,       // SYNC_MASTER: slave did not ack in time (stored)
  kSlaveNotAvailable,       // SYNC_MASTER: no slave in sync (stored)
  kServiceNotAvailable,     // shut down, not writable, disk full, slave role (not stored)
  kCreateMappedFileFailed,  // next segment could not be created (not stored)
  kMessageIllegal,          // topic/body/record too large, bad batch (not stored)
  kPropertiesSizeExceeded,  // properties > 32767 bytes (not stored)
  kOsPageCacheBusy,         // the append lock is held > 1 s (not stored)
  kUnknownError,            // anything else (not stored / unknown)
};

constexpr std::string_view PutMessageStatusName(PutMessageStatus s) {
  switch (s) {
    case PutMessageStatus::kPutOk:
      return "PUT_OK";
    case PutMessageStatus::kFlushDiskTimeout:
      return "FLUSH_DISK_TIMEOUT";
    case PutMessageStatus::kFlushSlaveTimeout:
      return "FLUSH_SLAVE_TIMEOUT";
    case PutMessageStatus::kSlaveNotAvailable:
      return "SLAVE_NOT_AVAILABLE";
    case PutMessageStatus::kServiceNotAvailable:
      return "SERVICE_NOT_AVAILABLE";
    case PutMessageStatus::kCreateMappedFileFailed:
      return "CREATE_MAPPED_FILE_FAILED";
    case PutMessageStatus::kMessageIllegal:
      return "MESSAGE_ILLEGAL";
    case PutMessageStatus::kPropertiesSizeExceeded:
      return "PROPERTIES_SIZE_EXCEEDED";
    case PutMessageStatus::kOsPageCacheBusy:
      return "OS_PAGE_CACHE_BUSY";
    case PutMessageStatus::kUnknownError:
      return "UNKNOWN_ERROR";
  }
  return "UNKNOWN_ERROR";
}

// True when the message was written to the commit log.
constexpr bool IsStored(PutMessageStatus s) {
  return s == PutMessageStatus::kPutOk || s == PutMessageStatus::kFlushDiskTimeout ||
         s == PutMessageStatus::kFlushSlaveTimeout || s == PutMessageStatus::kSlaveNotAvailable;
}

}  // namespace rocketstore
