#include "broker/broker_conf.h"

#include <sstream>

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

}  // namespace

Status ApplyBrokerConf(std::string_view text, BrokerOptions& o, std::vector<std::string>* ignored) {
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
    const std::string key(Trim(line.substr(0, sep)));
    const std::string value(Trim(line.substr(sep + 1)));
    auto bad = [&](const char* what) {
      return InvalidArgument("broker.conf line " + std::to_string(line_no) + ": " + key + "=" +
                             value + " is not " + what);
    };
    auto as_int = [&](int64_t& out) {
      auto v = protocol::ParseJavaLong(value);
      if (!v) return false;
      out = *v;
      return true;
    };
    auto as_bool = [&](bool& out) {
      if (value == "true") {
        out = true;
      } else if (value == "false") {
        out = false;
      } else {
        return false;
      }
      return true;
    };
    int64_t n = 0;
    bool b = false;
    if (key == "brokerClusterName") {
      o.cluster_name = value;
    } else if (key == "brokerName") {
      o.broker_name = value;
    } else if (key == "listenPort") {
      if (!as_int(n) || n < 0 || n > 65535) return bad("a port");
      o.server.port = static_cast<uint16_t>(n);
    } else if (key == "namesrvAddr") {
      o.namesrv_addrs = Split(value, ';');
    } else if (key == "brokerIP1") {
      o.advertised_addr = value;  // host only; the port is appended by the caller
    } else if (key == "storePathRootDir") {
      o.store.root_dir = value;
    } else if (key == "autoCreateTopicEnable") {
      if (!as_bool(b)) return bad("true/false");
      o.auto_create_topic = b;
    } else if (key == "longPollingEnable") {
      if (!as_bool(b)) return bad("true/false");
      o.long_polling = b;
    } else if (key == "messageIndexEnable") {
      if (!as_bool(b)) return bad("true/false");
      o.store.message_index_enable = b;
    } else if (key == "flushDiskType") {
      if (value == "ASYNC_FLUSH") {
        o.store.flush_disk_type = FlushDiskType::kAsyncFlush;
      } else if (value == "SYNC_FLUSH") {
        o.store.flush_disk_type = FlushDiskType::kSyncFlush;
      } else {
        return bad("ASYNC_FLUSH or SYNC_FLUSH");
      }
    } else if (key == "syncFlushZeroFill") {  // rocketstore's own (docs/durability.md)
      if (!as_bool(b)) return bad("true/false");
      o.store.sync_flush_zero_fill = b;
    } else if (key == "commitLogResidentWindow") {  // rocketstore's own (docs/operations.md)
      if (!as_int(n) || n < 0) return bad("a size in bytes >= 0 (0 keeps the page cache)");
      o.store.commit_log_resident_window_bytes = n;
    } else if (key == "accessMessageInMemoryMaxRatio") {
      if (!as_int(n) || n < 0 || n > 100) return bad("a percentage in [0, 100]");
      o.store.access_message_in_memory_max_ratio = static_cast<int>(n);
    } else if (key == "syncFlushTimeout") {
      if (!as_int(n) || n <= 0) return bad("a positive number");
      o.store.sync_flush_timeout_ms = n;
    } else if (key == "maxMessageSize") {
      if (!as_int(n) || n <= 0) return bad("a positive number");
      o.store.max_message_body_bytes = static_cast<size_t>(n);
    } else if (key == "mappedFileSizeCommitLog") {
      if (!as_int(n) || n < 4096) return bad("a size >= 4096");
      o.store.commit_log_segment_size = n;
    } else if (key == "mappedFileSizeConsumeQueue") {  // bytes per consume-queue file
      if (!as_int(n) || n < 20 || n > INT32_MAX || n % 20 != 0) {
        return bad("a size in bytes, a positive multiple of 20 (one unit is 20 bytes)");
      }
      o.store.consume_queue_units_per_file = n / 20;
    } else if (key == "maxHashSlotNum") {
      if (!as_int(n) || n <= 0 || n > INT32_MAX) return bad("a positive int");
      o.store.index_hash_slot_num = static_cast<int32_t>(n);
    } else if (key == "maxIndexNum") {
      if (!as_int(n) || n <= 1 || n > INT32_MAX) return bad("an int > 1");
      o.store.index_num = static_cast<int32_t>(n);
    } else if (key == "defaultTopicQueueNums") {
      if (!as_int(n) || n <= 0 || n > 1024) return bad("in [1, 1024]");
      o.default_topic_queue_nums = static_cast<int32_t>(n);
    } else if (ignored) {
      ignored->push_back(key);
    }
  }
  return Status::OK();
}

}  // namespace rocketstore::broker
