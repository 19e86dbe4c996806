#include "namesrv/register_body.h"

#include <rapidjson/document.h>
#include <zlib.h>

#include <charconv>

#include "protocol/json_util.h"

namespace rocketstore::namesrv {
namespace {

int64_t Int64Member(const rapidjson::Value& obj, const char* key, int64_t dflt) {
  auto it = obj.FindMember(key);
  return (it != obj.MemberEnd() && it->value.IsInt64()) ? it->value.GetInt64() : dflt;
}

DataVersion DataVersionOf(const rapidjson::Value& v) {
  DataVersion dv;
  if (!v.IsObject()) return dv;
  dv.counter = Int64Member(v, "counter", 0);
  dv.timestamp = Int64Member(v, "timestamp", 0);
  return dv;
}

Status ParseFilterServers(const rapidjson::Value& v, BrokerRegistration& reg) {
  if (v.IsNull()) return Status::OK();
  if (!v.IsArray()) return InvalidArgument("filterServerList is not a JSON array");
  reg.filter_servers.clear();
  for (const auto& s : v.GetArray()) {
    if (!s.IsString()) return InvalidArgument("filterServerList holds a non-string");
    reg.filter_servers.emplace_back(s.GetString(), s.GetStringLength());
  }
  return Status::OK();
}

// Reads big-endian int32 length-prefixed pieces of the inflated stream.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  Result<int32_t> Int(const char* what) {
    if (data_.size() - pos_ < 4) {
      return InvalidArgument(std::string("compressed register body ends before ") + what);
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_ + i]);
    pos_ += 4;
    return static_cast<int32_t>(v);
  }
  Result<std::string_view> Bytes(const char* what) {
    auto n = Int(what);
    if (!n.ok()) return n.status();
    if (*n < 0 || static_cast<size_t>(*n) > data_.size() - pos_) {
      return InvalidArgument(std::string("compressed register body: length of ") + what + " (" +
                             std::to_string(*n) + ") runs past its end");
    }
    std::string_view out = data_.substr(pos_, static_cast<size_t>(*n));
    pos_ += static_cast<size_t>(*n);
    return out;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

bool ParseInt32(std::string_view s, int32_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

Status ParseRegisterBody(std::string_view body, BrokerRegistration& reg) {
  std::string text = protocol::QuoteBareIntegerKeys(body);
  rapidjson::Document parsed;
  parsed.Parse(text.data(), text.size());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    return InvalidArgument("register body is not JSON (RegisterBrokerBody expected)");
  }
  // Read through a const view: RapidJSON 1.1.0 compares a mutable member iterator with
  // the end only through a converting operator==, which C++20's reversed-operator rules
  // make ambiguous (clang rejects it); const iterators compare exactly.
  const rapidjson::Value& doc = parsed;
  if (auto fs = doc.FindMember("filterServerList"); fs != doc.MemberEnd()) {
    RS_RETURN_IF_ERROR(ParseFilterServers(fs->value, reg));
  }
  auto wrapper = doc.FindMember("topicConfigSerializeWrapper");
  if (wrapper == doc.MemberEnd() || !wrapper->value.IsObject()) return Status::OK();
  const rapidjson::Value& w = wrapper->value;
  if (auto dv = w.FindMember("dataVersion"); dv != w.MemberEnd()) {
    reg.data_version = DataVersionOf(dv->value);
  }
  auto table = w.FindMember("topicConfigTable");
  if (table == w.MemberEnd() || !table->value.IsObject()) return Status::OK();
  for (auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    QueueData q;
    q.broker_name = reg.broker_name;
    auto get = [&](const char* key, int32_t dflt) {
      auto it = m.value.FindMember(key);
      return (it != m.value.MemberEnd() && it->value.IsInt()) ? it->value.GetInt() : dflt;
    };
    q.read_queue_nums = get("readQueueNums", 16);
    q.write_queue_nums = get("writeQueueNums", 16);
    q.perm = get("perm", 6);
    q.topic_sys_flag = get("topicSysFlag", 0);
    reg.topics[m.name.GetString()] = q;
  }
  return Status::OK();
}

Result<std::string> Inflate(std::span<const uint8_t> data, size_t max_size) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return InvalidArgument("zlib inflateInit failed");
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = zs.msg ? zs.msg : (rc == Z_BUF_ERROR ? "truncated stream" : "");
      inflateEnd(&zs);
      return InvalidArgument("compressed register body is not a valid zlib stream (" + why + ")");
    }
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (out.size() > max_size) {
      inflateEnd(&zs);
      return InvalidArgument("compressed register body inflates past " + std::to_string(max_size) +
                             " bytes");
    }
  }
  inflateEnd(&zs);
  return out;
}

Status DecodeCompressedRegisterBody(std::span<const uint8_t> body, BrokerRegistration& reg) {
  auto text = Inflate(body, size_t{256} << 20);
  if (!text.ok()) return text.status();
  Reader r(*text);
  auto dv_json = r.Bytes("dataVersion");
  if (!dv_json.ok()) return dv_json.status();
  auto dv = ParseDataVersion(*dv_json);
  if (!dv.ok()) return dv.status();
  reg.data_version = *dv;
  auto count = r.Int("the topic count");
  if (!count.ok()) return count.status();
  if (*count < 0) return InvalidArgument("compressed register body: negative topic count");
  for (int32_t i = 0; i < *count; ++i) {
    auto line = r.Bytes("a topic config");
    if (!line.ok()) return line.status();
    // "topicName readQueueNums writeQueueNums perm topicFilterType"
    std::string_view parts[5];
    size_t n = 0, start = 0;
    std::string_view l = *line;
    for (size_t pos = 0; pos <= l.size(); ++pos) {
      if (pos == l.size() || l[pos] == ' ') {
        if (n < 5) parts[n] = l.substr(start, pos - start);
        ++n;
        start = pos + 1;
      }
    }
    QueueData q;
    q.broker_name = reg.broker_name;
    if (n != 5 || parts[0].empty() || !ParseInt32(parts[1], q.read_queue_nums) ||
        !ParseInt32(parts[2], q.write_queue_nums) || !ParseInt32(parts[3], q.perm) ||
        (parts[4] != "SINGLE_TAG" && parts[4] != "MULTI_TAG")) {
      return InvalidArgument("compressed register body: topic config " + std::to_string(i) +
                             " is not \"name read write perm filterType\": \"" + std::string(l) +
                             "\"");
    }
    reg.topics[std::string(parts[0])] = q;
  }
  auto filters = r.Bytes("filterServerList");
  if (!filters.ok()) return filters.status();
  rapidjson::Document doc;
  doc.Parse(filters->data(), filters->size());
  if (doc.HasParseError()) {
    return InvalidArgument("compressed register body: filterServerList is not JSON");
  }
  return ParseFilterServers(doc, reg);
}

}  // namespace rocketstore::namesrv
