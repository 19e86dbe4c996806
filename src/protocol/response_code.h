// File: protocol/response_code.h
//
// Response codes of RocketMQ's remoting protocol (ResponseCode.java and
// RemotingSysResponseCode.java; remoting-protocol.md §A.4.2). A response carries its code
// in the same `code` header field a request uses for its RequestCode; flag bit 0 tells
// them apart. The client-side RPC_* codes (-1000..-1006) never travel and are left out.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocketstore::protocol {

enum class ResponseCode : int32_t {
  kSuccess = 0,
  kSystemError = 1,              // generic failure, bad/missing header field
  kSystemBusy = 2,               // flow control; the client retries
  kRequestCodeNotSupported = 3,  // remark " request type <code> not supported"
  kTransactionFailed = 4,
  kFlushDiskTimeout = 10,  // 10..12: the send SUCCEEDED, durability degraded
  kSlaveNotAvailable = 11,
  kFlushSlaveTimeout = 12,
  kMessageIllegal = 13,       // topic/properties/body too big, retry topic in batch
  kServiceNotAvailable = 14,  // store shut down, disk full, slave
  kVersionNotSupported = 15,
  kNoPermission = 16,
  kTopicNotExist = 17,
  kTopicExistAlready = 18,
  kPullNotFound = 19,          // no new message (after the long poll)
  kPullRetryImmediately = 20,  // messages existed but none matched the filter
  kPullOffsetMoved = 21,       // offset out of range; nextBeginOffset has the fix
  kQueryNotFound = 22,
  kSubscriptionParseFailed = 23,
  kSubscriptionNotExist = 24,
  kSubscriptionNotLatest = 25,
  kSubscriptionGroupNotExist = 26,
  kFilterDataNotExist = 27,
  kFilterDataNotLatest = 28,
  kInvalidParameter = 29,  // illegal topic name, queueId out of range
  kTransactionShouldCommit = 200,
  kTransactionShouldRollback = 201,
  kTransactionStateUnknow = 202,  // sic, as in Java
  kNoBuyerId = 204,
  kNotInCurrentUnit = 205,
  kConsumerNotOnline = 206,
  kConsumeMsgTimeout = 207,
  kNoMessage = 208,
  kPollingFull = 209,
  kPollingTimeout = 210,
  kBrokerNotExist = 211,
  kBrokerDispatchNotComplete = 212,
  kBroadcastConsumption = 213,
  kFlowControl = 215,
  kNotLeaderForQueue = 501,
  kIllegalOperation = 604,
  kGoAway = 1500,  // shutting down; only to clients newer than 5.3.1
};

constexpr int32_t ToInt(ResponseCode code) { return static_cast<int32_t>(code); }

// The Java constant name ("TOPIC_NOT_EXIST") of a listed code, or "" for any other value.
std::string_view ResponseCodeName(int32_t code);

}  // namespace rocketstore::protocol
