#include "broker/broker_conf.h"

#include <cstdint>
#include <map>
#include <sstream>

#include "broker/schedule/delay_level_table.h"
#include "protocol/remoting_command.h"

namespace rocketstore::broker {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss{std::string(s)};
  while (std::getline(ss, item, sep)) {
    if (!Trim(item).empty()) out.emplace_back(Trim(item));
  }
  return out;
}

// deleteWhen: hours of the day (one or two digits, 0..23) separated by ';'.
bool ValidDeleteWhen(std::string_view v) {
  if (v.empty()) return false;
  size_t begin = 0;
  while (begin <= v.size()) {
    size_t end = v.find(';', begin);
    if (end == std::string_view::npos) end = v.size();
    const std::string_view t = v.substr(begin, end - begin);
    if (t.empty() || t.size() > 2) return false;
    int hour = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return false;
      hour = hour * 10 + (c - '0');
    }
    if (hour > 23) return false;
    begin = end + 1;
  }
  return true;
}

// One `key=value` line of the file, with the means to read its value.
struct Entry {
  std::string key;
  std::string value;
  int line_no = 0;

  Status Bad(std::string_view what) const {
    return InvalidArgument("broker.conf line " + std::to_string(line_no) + ": " + key + "=" +
                           value + " is not " + std::string(what));
  }
  // The value as a Java long in [lo, hi]; else Bad(what).
  Result<int64_t> Int(int64_t lo, int64_t hi, std::string_view what) const {
    auto v = protocol::ParseJavaLong(value);
    if (!v || *v < lo || *v > hi) return Bad(what);
    return *v;
  }
  Result<bool> Bool() const {
    if (value == "true") return true;
    if (value == "false") return false;
    return Bad("true/false");
  }
};

using Setter = Status (*)(const Entry&, BrokerOptions&);

// Sets `field` from an int entry in [lo, hi].
#define RS_CONF_INT(field, lo, hi, what)                     \
  [](const Entry& e, BrokerOptions& o) -> Status {           \
    RS_ASSIGN_OR_RETURN(int64_t n, e.Int((lo), (hi), what)); \
    o.field = static_cast<decltype(o.field)>(n);             \
    return Status::OK();                                     \
  }
#define RS_CONF_BOOL(field)                        \
  [](const Entry& e, BrokerOptions& o) -> Status { \
    RS_ASSIGN_OR_RETURN(bool b, e.Bool());         \
    o.field = b;                                   \
    return Status::OK();                           \
  }
#define RS_CONF_STRING(field)                      \
  [](const Entry& e, BrokerOptions& o) -> Status { \
    o.field = e.value;                             \
    return Status::OK();                           \
  }

constexpr int64_t kMaxInt = INT32_MAX;

const std::map<std::string_view, Setter>& Setters() {
  static const std::map<std::string_view, Setter> table = {
      {"brokerClusterName", RS_CONF_STRING(cluster_name)},
      {"brokerName", RS_CONF_STRING(broker_name)},
      {"brokerIP1", RS_CONF_STRING(advertised_addr)},  // host only: the caller adds the port
      {"storePathRootDir", RS_CONF_STRING(store.root_dir)},
      {"listenPort", RS_CONF_INT(server.port, 0, 65535, "a port")},
      {"metricsPromExporterPort",
       RS_CONF_INT(metrics_port, 0, 65535, "a port (0 turns the metrics endpoint off)")},
      {"metricsPromExporterHost", RS_CONF_STRING(metrics_host)},
      {"namesrvAddr",
       [](const Entry& e, BrokerOptions& o) -> Status {
         o.namesrv_addrs = Split(e.value, ';');
         return Status::OK();
       }},
      {"autoCreateTopicEnable", RS_CONF_BOOL(auto_create_topic)},
      {"clusterTopicEnable", RS_CONF_BOOL(cluster_topic_enable)},
      {"brokerTopicEnable", RS_CONF_BOOL(broker_topic_enable)},
      {"traceTopicEnable", RS_CONF_BOOL(trace_topic_enable)},
      {"msgTraceTopicName",
       [](const Entry& e, BrokerOptions& o) -> Status {
         if (e.value.empty()) return e.Bad("a topic name");
         o.msg_trace_topic_name = e.value;
         return Status::OK();
       }},
      {"autoCreateSubscriptionGroup", RS_CONF_BOOL(auto_create_subscription_group)},
      {"storeReplyMessageEnable", RS_CONF_BOOL(store_reply_message)},
      {"brokerPermission", RS_CONF_INT(broker_permission, 0, 7, "PermName bits in [0, 7]")},
      {"longPollingEnable", RS_CONF_BOOL(long_polling)},
      {"enablePropertyFilter", RS_CONF_BOOL(enable_property_filter)},
      {"messageIndexEnable", RS_CONF_BOOL(store.message_index_enable)},
      {"timerWheelEnable", RS_CONF_BOOL(timer_wheel_enable)},
      {"timerPrecisionMs",
       RS_CONF_INT(timer_precision_ms, 10, 60000, "milliseconds in [10, 60000]")},
      {"timerMaxDelaySec",
       RS_CONF_INT(timer_max_delay_sec, 1, int64_t{10} * 366 * 86400, "seconds in [1, 10 years]")},
      {"syncFlushZeroFill", RS_CONF_BOOL(store.sync_flush_zero_fill)},  // rocketstore's own
      {"flushDiskType",
       [](const Entry& e, BrokerOptions& o) -> Status {
         if (e.value == "ASYNC_FLUSH") {
           o.store.flush_disk_type = FlushDiskType::kAsyncFlush;
         } else if (e.value == "SYNC_FLUSH") {
           o.store.flush_disk_type = FlushDiskType::kSyncFlush;
         } else {
           return e.Bad("ASYNC_FLUSH or SYNC_FLUSH");
         }
         return Status::OK();
       }},
      // rocketstore's own (docs/operations.md)
      {"commitLogResidentWindow", RS_CONF_INT(store.commit_log_resident_window_bytes, 0, INT64_MAX,
                                              "a size in bytes >= 0 (0 keeps the page cache)")},
      {"accessMessageInMemoryMaxRatio",
       RS_CONF_INT(store.access_message_in_memory_max_ratio, 0, 100, "a percentage in [0, 100]")},
      {"syncFlushTimeout",
       RS_CONF_INT(store.sync_flush_timeout_ms, 1, INT64_MAX, "a positive number")},
      {"maxMessageSize",
       RS_CONF_INT(store.max_message_body_bytes, 1, INT64_MAX, "a positive number")},
      {"mappedFileSizeCommitLog",
       RS_CONF_INT(store.commit_log_segment_size, 4096, INT64_MAX, "a size >= 4096")},
      // Bytes per consume-queue file; like RocketMQ (getMappedFileSizeConsumeQueue), a size
      // that is not a multiple of the 20-byte unit is rounded up to one.
      {"mappedFileSizeConsumeQueue",
       [](const Entry& e, BrokerOptions& o) -> Status {
         RS_ASSIGN_OR_RETURN(int64_t n, e.Int(1, kMaxInt, "a positive size in bytes"));
         o.store.consume_queue_units_per_file = (n + 19) / 20;
         return Status::OK();
       }},
      {"maxHashSlotNum", RS_CONF_INT(store.index_hash_slot_num, 1, kMaxInt, "a positive int")},
      {"maxIndexNum", RS_CONF_INT(store.index_num, 2, kMaxInt, "an int > 1")},
      {"defaultTopicQueueNums", RS_CONF_INT(default_topic_queue_nums, 1, 1024, "in [1, 1024]")},
      {"shortPollingTimeMills",
       RS_CONF_INT(short_polling_ms, 1, INT64_MAX, "a positive number of milliseconds")},
      {"flushConsumerOffsetInterval",
       RS_CONF_INT(offset_persist_interval_ms, 1, INT64_MAX, "a positive number of milliseconds")},
      // Java reads only the system property -Drocketmq.broker.rebalance.lockMaxLiveTime;
      // here both names are broker.conf keys.
      {"rebalanceLockMaxLiveTime",
       RS_CONF_INT(rebalance_lock_max_live_ms, 1, INT64_MAX, "a positive number of milliseconds")},
      {"rocketmq.broker.rebalance.lockMaxLiveTime",
       RS_CONF_INT(rebalance_lock_max_live_ms, 1, INT64_MAX, "a positive number of milliseconds")},
      {"flushIntervalCommitLog",
       RS_CONF_INT(store.async_flush.interval_ms, 1, INT64_MAX, "a positive number of ms")},
      {"flushCommitLogLeastPages",
       RS_CONF_INT(store.async_flush.least_pages, 0, kMaxInt, "a number of pages >= 0")},
      {"flushCommitLogThoroughInterval", RS_CONF_INT(store.async_flush.thorough_interval_ms, 1,
                                                     INT64_MAX, "a positive number of ms")},
      {"messageDelayLevel",
       [](const Entry& e, BrokerOptions& o) -> Status {
         auto levels = DelayLevelTable::Parse(e.value);
         if (!levels.ok()) {
           return InvalidArgument("broker.conf line " + std::to_string(e.line_no) + ": " +
                                  levels.status().message());
         }
         o.message_delay_level = e.value;
         return Status::OK();
       }},
      {"flushDelayOffsetInterval", RS_CONF_INT(flush_delay_offset_interval_ms, 1, INT64_MAX,
                                               "a positive number of milliseconds")},
      {"transactionTimeOut",
       RS_CONF_INT(transaction_timeout_ms, 0, INT64_MAX, "a number of milliseconds >= 0")},
      {"transactionCheckInterval", RS_CONF_INT(transaction_check_interval_ms, 1, INT64_MAX,
                                               "a positive number of milliseconds")},
      {"transactionCheckMax", RS_CONF_INT(transaction_check_max, 0, kMaxInt, "an int >= 0")},
      {"registerNameServerPeriod",
       RS_CONF_INT(register_interval_ms, 1000, 60000, "in [1000, 60000] ms")},
      {"registerBrokerTimeoutMills",
       RS_CONF_INT(register_timeout_ms, 100, 60000, "in [100, 60000] ms")},
      // Retention (store/cleanup/retention.h); also changeable at run time.
      {"fileReservedTime",  // hours, as RocketMQ
       [](const Entry& e, BrokerOptions& o) -> Status {
         RS_ASSIGN_OR_RETURN(int64_t h, e.Int(0, 876000, "a number of hours in [0, 876000]"));
         o.store.retention.file_reserved_time_ms = h * 3600 * 1000;
         return Status::OK();
       }},
      {"deleteWhen",
       [](const Entry& e, BrokerOptions& o) -> Status {
         if (!ValidDeleteWhen(e.value)) {
           return e.Bad("a ';'-separated list of hours 00..23 (e.g. 04 or 04;16)");
         }
         o.store.retention.delete_when = e.value;
         return Status::OK();
       }},
      {"diskMaxUsedSpaceRatio",
       RS_CONF_INT(store.retention.disk_max_used_space_ratio, 10, 95, "a percentage in [10, 95]")},
      // RocketMQ 5's keys (4.9.8: system properties rocketmq.broker.diskSpace*).
      {"diskSpaceCleanForciblyRatio", RS_CONF_INT(store.retention.disk_space_clean_forcibly_ratio,
                                                  30, 85, "a percentage in [30, 85]")},
      {"diskSpaceWarningLevelRatio", RS_CONF_INT(store.retention.disk_space_warning_level_ratio, 35,
                                                 90, "a percentage in [35, 90]")},
      {"deleteFileBatchMax",
       RS_CONF_INT(store.retention.delete_files_batch_max, 1, 1000, "in [1, 1000]")},
      {"cleanFileForciblyEnable", RS_CONF_BOOL(store.retention.clean_file_forcibly_enable)},
      {"cleanResourceInterval", RS_CONF_INT(store.retention_interval_ms, 100, 3600 * 1000,
                                            "milliseconds in [100, 3600000]")},
  };
  return table;
}

#undef RS_CONF_INT
#undef RS_CONF_BOOL
#undef RS_CONF_STRING

}  // namespace

Result<std::vector<BrokerConfEntry>> ParseBrokerConf(std::string_view text) {
  std::vector<BrokerConfEntry> out;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    const size_t sep = line.find_first_of("=:");
    if (sep == std::string_view::npos) {
      return InvalidArgument("broker.conf line " + std::to_string(line_no) + ": no '='");
    }
    out.push_back(
        {std::string(Trim(line.substr(0, sep))), std::string(Trim(line.substr(sep + 1)))});
  }
  return out;
}

Status ApplyBrokerConf(std::string_view text, BrokerOptions& o, std::vector<std::string>* ignored) {
  RS_ASSIGN_OR_RETURN(std::vector<BrokerConfEntry> entries, ParseBrokerConf(text));
  // Line numbers of the non-comment lines, for the messages.
  int line_no = 0;
  size_t pos = 0;
  size_t next = 0;
  while (pos <= text.size() && next < entries.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    Entry e{entries[next].key, entries[next].value, line_no};
    ++next;
    auto it = Setters().find(e.key);
    if (it == Setters().end()) {
      if (ignored) ignored->push_back(e.key);
      continue;
    }
    RS_RETURN_IF_ERROR(it->second(e, o));
  }
  return Status::OK();
}

std::string FormatBrokerConf(const BrokerOptions& o) {
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string namesrv;
  for (const std::string& a : o.namesrv_addrs) namesrv += (namesrv.empty() ? "" : ";") + a;
  std::string ip1 = o.advertised_addr.substr(0, o.advertised_addr.rfind(':'));
  std::map<std::string, std::string> values = {
      {"brokerClusterName", o.cluster_name},
      {"brokerName", o.broker_name},
      {"brokerIP1", ip1},
      {"storePathRootDir", o.store.root_dir},
      {"listenPort", n(o.server.port)},
      {"namesrvAddr", namesrv},
      {"autoCreateTopicEnable", b(o.auto_create_topic)},
      {"clusterTopicEnable", b(o.cluster_topic_enable)},
      {"brokerTopicEnable", b(o.broker_topic_enable)},
      {"traceTopicEnable", b(o.trace_topic_enable)},
      {"msgTraceTopicName", o.msg_trace_topic_name},
      {"autoCreateSubscriptionGroup", b(o.auto_create_subscription_group)},
      {"storeReplyMessageEnable", b(o.store_reply_message)},
      {"brokerPermission", n(o.broker_permission)},
      {"longPollingEnable", b(o.long_polling)},
      {"enablePropertyFilter", b(o.enable_property_filter)},
      {"messageIndexEnable", b(o.store.message_index_enable)},
      {"timerWheelEnable", b(o.timer_wheel_enable)},
      {"timerPrecisionMs", n(o.timer_precision_ms)},
      {"timerMaxDelaySec", n(o.timer_max_delay_sec)},
      {"syncFlushZeroFill", b(o.store.sync_flush_zero_fill)},
      {"flushDiskType",
       o.store.flush_disk_type == FlushDiskType::kSyncFlush ? "SYNC_FLUSH" : "ASYNC_FLUSH"},
      {"accessMessageInMemoryMaxRatio", n(o.store.access_message_in_memory_max_ratio)},
      {"syncFlushTimeout", n(o.store.sync_flush_timeout_ms)},
      {"maxMessageSize", n(static_cast<int64_t>(o.store.max_message_body_bytes))},
      {"mappedFileSizeCommitLog", n(o.store.commit_log_segment_size)},
      {"mappedFileSizeConsumeQueue", n(o.store.consume_queue_units_per_file * 20)},
      {"maxHashSlotNum", n(o.store.index_hash_slot_num)},
      {"maxIndexNum", n(o.store.index_num)},
      {"defaultTopicQueueNums", n(o.default_topic_queue_nums)},
      {"shortPollingTimeMills", n(o.short_polling_ms)},
      {"flushConsumerOffsetInterval", n(o.offset_persist_interval_ms)},
      {"rebalanceLockMaxLiveTime", n(o.rebalance_lock_max_live_ms)},
      {"flushIntervalCommitLog", n(o.store.async_flush.interval_ms)},
      {"flushCommitLogLeastPages", n(o.store.async_flush.least_pages)},
      {"flushCommitLogThoroughInterval", n(o.store.async_flush.thorough_interval_ms)},
      {"messageDelayLevel", o.message_delay_level},
      {"flushDelayOffsetInterval", n(o.flush_delay_offset_interval_ms)},
      {"transactionTimeOut", n(o.transaction_timeout_ms)},
      {"transactionCheckInterval", n(o.transaction_check_interval_ms)},
      {"transactionCheckMax", n(o.transaction_check_max)},
      {"registerNameServerPeriod", n(o.register_interval_ms)},
      {"registerBrokerTimeoutMills", n(o.register_timeout_ms)},
      {"fileReservedTime", n(o.store.retention.file_reserved_time_ms / (3600 * 1000))},
      {"deleteWhen", o.store.retention.delete_when},
      {"diskMaxUsedSpaceRatio", n(o.store.retention.disk_max_used_space_ratio)},
      {"diskSpaceCleanForciblyRatio", n(o.store.retention.disk_space_clean_forcibly_ratio)},
      {"diskSpaceWarningLevelRatio", n(o.store.retention.disk_space_warning_level_ratio)},
      {"deleteFileBatchMax", n(o.store.retention.delete_files_batch_max)},
      {"cleanFileForciblyEnable", b(o.store.retention.clean_file_forcibly_enable)},
      {"cleanResourceInterval", n(o.store.retention_interval_ms)},
  };
  // Negative: "automatic" (no key means that); ApplyBrokerConf accepts only sizes >= 0.
  if (o.store.commit_log_resident_window_bytes >= 0) {
    values["commitLogResidentWindow"] = n(o.store.commit_log_resident_window_bytes);
  }
  std::string out;
  for (const auto& [k, v] : values) out += k + "=" + v + "\n";
  return out;
}

}  // namespace rocketstore::broker
