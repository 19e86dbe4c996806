// File: broker/system_topics.h
//
// RocketMQ's system topics (TopicValidator, 4.9.8) and the two questions the broker asks
// of a topic name: is it a system topic (admin may not create it), and may a client send
// to it. The names of topics rocketstore's own features write (delay levels, halves,
// timers) live here too, so each feature names them once.
#pragma once

#include <string>
#include <string_view>

namespace rocketstore::broker {

inline constexpr std::string_view kAutoCreateTopicKey = "TBW102";
inline constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";
inline constexpr std::string_view kBenchmarkTopic = "BenchmarkTest";
inline constexpr std::string_view kTransHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
inline constexpr std::string_view kTraceTopic = "RMQ_SYS_TRACE_TOPIC";
inline constexpr std::string_view kTransOpHalfTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr std::string_view kTransCheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC";
inline constexpr std::string_view kSelfTestTopic = "SELF_TEST_TOPIC";
inline constexpr std::string_view kOffsetMovedEventTopic = "OFFSET_MOVED_EVENT";
// Prefix of internal topics (RocketMQ 5 uses it for timers and POP); never client-writable.
inline constexpr std::string_view kSystemTopicPrefix = "rmq_sys_";
// Timer messages waiting for their time (RocketMQ 5 TimerMessageStore.TIMER_TOPIC).
inline constexpr std::string_view kTimerTopic = "rmq_sys_wheel_timer";
inline constexpr std::string_view kRetryGroupTopicPrefix = "%RETRY%";
inline constexpr std::string_view kDlqGroupTopicPrefix = "%DLQ%";

// The topic request-reply answers go to: MixAll.getReplyTopic, "<cluster>_REPLY_TOPIC".
// The broker creates it at startup (1 queue, RW) and treats it as a system topic: admin
// may not create or change it, clients may send to it.
inline std::string ReplyTopicOf(std::string_view cluster_name) {
  return std::string(cluster_name) + "_REPLY_TOPIC";
}

inline bool IsSystemTopic(std::string_view t) {
  return t == kAutoCreateTopicKey || t == kScheduleTopic || t == kBenchmarkTopic ||
         t == kTransHalfTopic || t == kTraceTopic || t == kTransOpHalfTopic ||
         t == kTransCheckMaxTimeTopic || t == kSelfTestTopic || t == kOffsetMovedEventTopic ||
         t.starts_with(kSystemTopicPrefix);
}

// TopicValidator.isNotAllowedSendTopic, plus TBW102 (TopicConfigManager
// .isTopicCanSendMessage) and the internal prefix.
inline bool IsNotAllowedSendTopic(std::string_view t) {
  return t == kAutoCreateTopicKey || t == kScheduleTopic || t == kTransHalfTopic ||
         t == kTransOpHalfTopic || t == kTransCheckMaxTimeTopic || t == kSelfTestTopic ||
         t == kOffsetMovedEventTopic || t.starts_with(kSystemTopicPrefix);
}

}  // namespace rocketstore::broker
