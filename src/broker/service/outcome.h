// File: broker/service/outcome.h
//
// What a broker service answers, independent of the transport. Every service returns an
// Outcome (plus a remark a client can show); the remoting front end maps it to a
// RocketMQ response code in exactly one place (broker/remoting/response_mapping.h), and a
// later gRPC front end maps the same values to its own codes.
//
// The names follow RocketMQ's ResponseCode where a client reacts to the specific value
// (the pull states, SUBSCRIPTION_NOT_LATEST, FLUSH_DISK_TIMEOUT ...).
//
// Thread-safety: values.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace rocketstore::broker {

enum class Outcome {
  kOk,
  // Stored, but the durability the producer asked for was not reached in time.
  kFlushDiskTimeout,
  kFlushSlaveTimeout,
  kSlaveNotAvailable,
  // The request is wrong whatever the broker's state (bad name, bad number, bad batch).
  kInvalidArgument,
  kMessageIllegal,  // size, properties, or a batch the broker cannot take
  kTopicNotExist,
  kNoPermission,      // perm bits, forbidden system topics, consume disabled
  kIllegalOperation,  // ILLEGAL_OPERATION: e.g. a recall handle that is not this broker's
  kSubscriptionGroupNotExist,
  kSubscriptionNotExist,
  kSubscriptionNotLatest,
  kSubscriptionParseFailed,
  kFilterDataNotExist,  // a SQL92 subscription the heartbeat registered does not compile
  kQueryNotFound,
  // Pull results a consumer acts on.
  kPullNotFound,
  kPullRetryImmediately,
  kPullOffsetMoved,
  // admin part B: a consumer group with no live client (CONSUMER_NOT_ONLINE), a client
  // that did not answer a forwarded request in time (CONSUME_MSG_TIMEOUT).
  kConsumerNotOnline,
  kConsumeMsgTimeout,
  kServiceNotAvailable,  // store not writable, shutting down
  kSystemBusy,
  kSystemError,  // anything else (the remark says what)
};

std::string_view OutcomeName(Outcome o);

// An outcome with its remark. `ok()` only for kOk.
struct Verdict {
  Outcome outcome = Outcome::kOk;
  std::string remark;

  bool ok() const { return outcome == Outcome::kOk; }
  static Verdict Ok() { return {}; }
  static Verdict Error(Outcome o, std::string remark) { return {o, std::move(remark)}; }
};

}  // namespace rocketstore::broker
