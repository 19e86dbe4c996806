// File: broker/broker_conf.h
//
// RocketMQ-style broker.conf: `key=value` lines (Java Properties subset: '#'/'!' comments,
// blank lines, whitespace around key and value trimmed, also `key: value`). Applied onto
// BrokerOptions. Recognised keys:
//   brokerClusterName, brokerName, listenPort, namesrvAddr (a;b), brokerIP1 (advertised
//   host), storePathRootDir, autoCreateTopicEnable, flushDiskType (ASYNC_FLUSH/SYNC_FLUSH),
//   syncFlushTimeout, maxMessageSize, mappedFileSizeCommitLog, mappedFileSizeConsumeQueue
//   (rounded up to a multiple of 20 as RocketMQ does), messageIndexEnable, maxHashSlotNum,
//   maxIndexNum, longPollingEnable, shortPollingTimeMills, defaultTopicQueueNums,
//   accessMessageInMemoryMaxRatio, flushConsumerOffsetInterval, registerNameServerPeriod,
//   clusterTopicEnable, brokerTopicEnable, traceTopicEnable, msgTraceTopicName,
//   autoCreateSubscriptionGroup, brokerPermission, rebalanceLockMaxLiveTime (also spelled
//   as Java's system property rocketmq.broker.rebalance.lockMaxLiveTime), messageDelayLevel
//   (checked as RocketMQ parses it), flushDelayOffsetInterval, flushIntervalCommitLog,
//   flushCommitLogLeastPages, flushCommitLogThoroughInterval, transactionTimeOut,
//   transactionCheckInterval, transactionCheckMax, and rocketstore's own
//   syncFlushZeroFill and commitLogResidentWindow. The table is in broker_conf.cc (one line
//   per key).
// Unknown keys are returned in `ignored` (callers log them). A bad value (not a number, not
// true/false, unknown flush type) is kInvalidArgument naming the key and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "broker/broker_options.h"

namespace rocketstore::broker {

Status ApplyBrokerConf(std::string_view text, BrokerOptions& options,
                       std::vector<std::string>* ignored);

// The `key=value` entries of a broker.conf text, in order (same syntax as above);
// kInvalidArgument for a line without '=' or ':'.
struct BrokerConfEntry {
  std::string key;
  std::string value;
};
Result<std::vector<BrokerConfEntry>> ParseBrokerConf(std::string_view text);

// Every recognised key with its value in `options`, as `key=value` lines sorted by key
// (GET_BROKER_CONFIG's body; what ApplyBrokerConf reads back to the same options).
std::string FormatBrokerConf(const BrokerOptions& options);

}  // namespace rocketstore::broker
