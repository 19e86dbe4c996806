// libFuzzer target for the JSON header decoder (protocol/internal/header_codec.h): the
// fastjson-shape stage and the fast path — a scanner for the subset of JSON real clients send —
// against the RapidJSON path, on arbitrary bytes, with small and default limits. Wherever the fast
// path answers, its status (code and message) and decoded fields must equal RapidJSON's; the
// combined decoder must always give RapidJSON's answer, even when the fast path gave up part way
// through (it must undo what it had already set). With Limits::send_fields_by_position the
// stage's one-letter send fields must read (FindField) as RapidJSON's map does.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>

#include "fuzz_check.h"  // this directory
#include "protocol/internal/header_codec.h"

namespace {

using namespace rocketstore;                      // NOLINT(build/namespaces)
using namespace rocketstore::protocol;            // NOLINT(build/namespaces)
using namespace rocketstore::protocol::internal;  // NOLINT(build/namespaces)

bool SameHeader(const RemotingCommand& a, const RemotingCommand& b) {
  return a.code == b.code && a.language == b.language && a.version == b.version &&
         a.opaque == b.opaque && a.flag == b.flag && a.remark == b.remark &&
         a.ext_fields == b.ext_fields;
}

void Check(std::span<const uint8_t> header, const Limits& limits) {
  RemotingCommand slow_cmd;
  const Status slow = DecodeJsonHeaderWithRapidJson(header, limits, &slow_cmd);

  // The fastjson-shape stage: where it answers, RapidJSON's fields; where not, untouched.
  {
    RemotingCommand staged;
    staged.remark = "before";
    staged.ext_fields.Set("before", "1");
    const RemotingCommand before = staged;
    const std::string_view text(reinterpret_cast<const char*>(header.data()), header.size());
    if (TryDecodeFastjsonHeader(text, limits, &staged)) {
      RemotingCommand expected = before;
      FUZZ_CHECK(slow.ok());
      FUZZ_CHECK(DecodeJsonHeaderWithRapidJson(header, limits, &expected).ok());
      FUZZ_CHECK(SameHeader(staged, expected));
    } else {
      FUZZ_CHECK(SameHeader(staged, before));
    }
  }

  // By position (Limits::send_fields_by_position): where the stage answers, RapidJSON's
  // map gives the same scalars and the same FindField for every one-letter name.
  {
    Limits by_position = limits;
    by_position.send_fields_by_position = true;
    RemotingCommand typed;
    const std::string_view text(reinterpret_cast<const char*>(header.data()), header.size());
    if (TryDecodeFastjsonHeader(text, by_position, &typed)) {
      FUZZ_CHECK(slow.ok());
      FUZZ_CHECK(typed.code == slow_cmd.code && typed.flag == slow_cmd.flag &&
                 typed.opaque == slow_cmd.opaque && typed.version == slow_cmd.version &&
                 typed.language == slow_cmd.language && typed.remark == slow_cmd.remark);
      if (typed.send_v2.used()) {
        FUZZ_CHECK(typed.ext_fields.empty());
        for (char c = 'a'; c < 'a' + SendV2Fields::kCount; ++c) {
          const std::string_view name(&c, 1);
          FUZZ_CHECK(typed.FindField(name) == slow_cmd.FindField(name));
        }
      } else {
        FUZZ_CHECK(typed.ext_fields == slow_cmd.ext_fields);
      }
    }
  }

  RemotingCommand fast_cmd;
  const std::optional<Status> fast = TryDecodeJsonHeaderFast(header, limits, &fast_cmd);
  if (fast.has_value()) {
    FUZZ_CHECK(fast->code() == slow.code());
    FUZZ_CHECK(fast->message() == slow.message());
    if (slow.ok()) FUZZ_CHECK(SameHeader(fast_cmd, slow_cmd));
  }

  // Start from a command with every header field set, so an unrestored field shows.
  RemotingCommand combined_cmd;
  combined_cmd.code = 77;
  combined_cmd.opaque = 78;
  combined_cmd.remark = "before";
  combined_cmd.ext_fields.Set("before", "1");
  RemotingCommand expected_cmd = combined_cmd;
  const Status expected = DecodeJsonHeaderWithRapidJson(header, limits, &expected_cmd);
  const Status combined = DecodeJsonHeader(header, limits, &combined_cmd);
  FUZZ_CHECK(combined.code() == expected.code());
  FUZZ_CHECK(combined.message() == expected.message());
  if (expected.ok()) FUZZ_CHECK(SameHeader(combined_cmd, expected_cmd));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> header(data, size);
  Limits small;
  small.max_ext_fields = 8;
  small.max_key_length = 16;
  small.max_value_length = 64;
  small.max_remark_length = 32;
  small.max_json_depth = 4;
  Check(header, small);
  Check(header, Limits{});
  return 0;
}
