// libFuzzer target for the CommitLog record format (store/format/message_record.h),
// properties strings (store/format/properties.h) and offset message ids
// (store/format/message_id.h). Besides memory safety (ASan/UBSan), it checks:
//   * a kRecord re-encodes to exactly the bytes it was decoded from, lies inside the input
//     and, with check_crc, carries the right body CRC;
//   * kTruncated only when the input really is shorter than the announced TOTALSIZE, and
//     every proper prefix of an accepted record is kTruncated;
//   * check_crc=true never accepts what check_crc=false rejects;
//   * FindProperty and PropertyIndex agree with ParseProperties; RemoveProperty removes
//     exactly one name; PropertiesBuilder output parses back to the same map, and
//     AppendInHashMapOrder (when it takes the input) writes the same bytes;
//   * an accepted msgId / host string re-encodes to itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/coding.h"
#include "base/crc32.h"
#include "fuzz_check.h"  // this directory
#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace {

using namespace rocketstore;          // NOLINT(build/namespaces)
using namespace rocketstore::format;  // NOLINT(build/namespaces)

bool Within(std::string_view view, const uint8_t* begin, size_t n) {
  const auto* p = reinterpret_cast<const uint8_t*>(view.data());
  return view.empty() || (p >= begin && p + view.size() <= begin + n);
}

void CheckRecord(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  const DecodeResult unchecked = DecodeRecord(bytes, /*check_crc=*/false);
  const DecodeResult checked = DecodeRecord(bytes, /*check_crc=*/true);
  if (checked.outcome != unchecked.outcome) {
    // Only the CRC may make a difference.
    FUZZ_CHECK(unchecked.outcome == DecodeOutcome::kRecord);
    FUZZ_CHECK(checked.outcome == DecodeOutcome::kCorrupt);
    FUZZ_CHECK(checked.error.find("body CRC mismatch") != std::string::npos);
  }
  for (const DecodeResult* r : {&unchecked, &checked}) {
    switch (r->outcome) {
      case DecodeOutcome::kRecord: {
        const RecordView& v = r->record;
        FUZZ_CHECK(r->error.empty());
        FUZZ_CHECK(v.total_size > 0 && static_cast<size_t>(v.total_size) <= size);
        FUZZ_CHECK(static_cast<size_t>(v.total_size) >= kMinRecordSizeV1);
        FUZZ_CHECK(v.magic == kMessageMagicV1 || v.magic == kMessageMagicV2);
        const size_t total = static_cast<size_t>(v.total_size);
        FUZZ_CHECK(Within(v.body, data, total));
        FUZZ_CHECK(Within(v.topic, data, total));
        FUZZ_CHECK(Within(v.properties, data, total));
        FUZZ_CHECK(v.born_host.v6 == ((v.sys_flag & kSysFlagBornHostV6) != 0));
        FUZZ_CHECK(v.store_host.v6 == ((v.sys_flag & kSysFlagStoreHostV6) != 0));
        if (r == &checked) FUZZ_CHECK(RocketMqCrc32(v.body) == v.body_crc);
        const MessageToStore m = ToMessageToStore(v);
        FUZZ_CHECK(EncodedRecordSize(m, v.magic) == total);
        std::vector<uint8_t> again(total);
        EncodeRecord(m, v.body_crc, v.queue_offset, v.physical_offset, v.store_timestamp,
                     again.data(), v.magic);
        FUZZ_CHECK(std::memcmp(again.data(), data, total) == 0);
        // A torn copy of this record is a torn tail, never corruption.
        for (size_t n : {size_t{0}, size_t{7}, size_t{8}, size_t{40}, total / 2, total - 1}) {
          if (n >= total) continue;
          const DecodeResult torn = DecodeRecord(bytes.first(n), r == &checked);
          FUZZ_CHECK(torn.outcome == DecodeOutcome::kTruncated);
        }
        break;
      }
      case DecodeOutcome::kBlank:
        FUZZ_CHECK(r->blank_length >= kEndFileMinBlankLength);
        FUZZ_CHECK(DecodeFixed32BE(data + kMagicOffset) == kBlankMagic);
        break;
      case DecodeOutcome::kTruncated:
        FUZZ_CHECK(!r->error.empty());
        if (size >= 8)
          FUZZ_CHECK(DecodeInt32BE(data) > 0 && size < static_cast<size_t>(DecodeInt32BE(data)));
        break;
      case DecodeOutcome::kCorrupt:
        FUZZ_CHECK(!r->error.empty());
        break;
    }
  }
}

void CheckProperties(std::string_view text) {
  const auto parsed = ParseProperties(text);
  std::map<std::string_view, std::string_view> as_map;
  for (const auto& [name, value] : parsed) {
    FUZZ_CHECK(!name.empty() && !value.empty());
    FUZZ_CHECK(as_map.emplace(name, value).second);  // unique names
    const auto found = FindProperty(text, name);
    FUZZ_CHECK(found.has_value() && *found == value);
  }
  for (std::string_view name : {kPropertyTags, kPropertyKeys, kPropertyUniqKey, kPropertyWait}) {
    const auto found = FindProperty(text, name);
    FUZZ_CHECK(found.has_value() == (as_map.count(name) == 1));
  }
  if (!parsed.empty()) {
    const std::string_view victim = parsed.front().first;
    const std::string removed = RemoveProperty(text, victim);
    FUZZ_CHECK(!FindProperty(removed, victim).has_value());
    auto rest = ParseProperties(removed);
    std::vector<std::pair<std::string_view, std::string_view>> expected(parsed.begin() + 1,
                                                                        parsed.end());
    FUZZ_CHECK(rest == expected);
  }
  for (PropertiesFormat format :
       {PropertiesFormat::RocketMq4_9_8(), PropertiesFormat::RocketMq5Broker()}) {
    const PropertiesBuilder b = PropertiesBuilder::FromString(text, format);
    FUZZ_CHECK(b.size() == parsed.size());
    const std::string built = b.Build();
    FUZZ_CHECK(built.size() == b.EncodedSize());
    std::map<std::string_view, std::string_view> back;
    for (const auto& [n, v] : ParseProperties(built)) back.emplace(n, v);
    FUZZ_CHECK(back == as_map);
    // The send path's shortcut writes what the builder writes (it remembers the last
    // order per thread: consecutive inputs exercise reuse and misses).
    std::vector<PropertyEntry> entries;
    for (const auto& [n, v] : parsed) entries.push_back({n, v});
    std::string shortcut;
    if (AppendInHashMapOrder(entries, entries.size(), format, &shortcut)) {
      FUZZ_CHECK(shortcut == built);
    } else {
      FUZZ_CHECK(shortcut.empty());
    }
  }
  const PropertyIndex index(text);
  FUZZ_CHECK(index.size() == parsed.size());
  for (const auto& [name, value] : parsed) FUZZ_CHECK(index.Find(name) == value);
}

void CheckIds(std::string_view text) {
  const Result<OffsetMsgId> id = DecodeOffsetMsgId(text);
  if (id.ok()) {
    std::string upper(text);
    for (char& c : upper) {
      if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    }
    FUZZ_CHECK(EncodeOffsetMsgId(id->host, id->physical_offset) == upper);
  } else {
    FUZZ_CHECK(id.status().code() == StatusCode::kInvalidArgument);
  }
  const Result<HostAddress> host = HostAddress::Parse(text);
  if (host.ok()) {
    FUZZ_CHECK(text.find('\0') == std::string_view::npos);
    const Result<HostAddress> again = HostAddress::Parse(host->ToString());
    FUZZ_CHECK(again.ok() && *again == *host);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckRecord(data, size);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckProperties(text);
  CheckIds(text);
  return 0;
}
