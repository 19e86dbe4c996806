// libFuzzer target for the JSON client-body decoders (protocol/bodies/client_bodies.h):
// HeartbeatData, LockBatchRequestBody / LockBatchResponseBody / UnlockBatchRequestBody and
// ConsumerListBody on the same arbitrary bytes. An error is kInvalidArgument naming the
// body; whatever decodes re-encodes to JSON that decodes to an equal value, and encoding
// that value again gives the same bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"  // this directory
#include "protocol/bodies/client_bodies.h"

namespace {

using namespace rocketstore;            // NOLINT(build/namespaces)
using namespace rocketstore::protocol;  // NOLINT(build/namespaces)

std::string_view Text(const std::vector<uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <typename B>
void Check(std::string_view json, std::string_view name) {
  Result<B> b = B::Decode(json);
  if (!b.ok()) {
    FUZZ_CHECK(b.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(b.status().message().rfind(std::string(name) + ": ", 0) == 0);
    return;
  }
  const std::vector<uint8_t> encoded = b->Encode();
  Result<B> back = B::Decode(Text(encoded));
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(*back == *b);
  FUZZ_CHECK(back->Encode() == encoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  Check<HeartbeatData>(json, "HeartbeatData");
  Check<LockBatchRequestBody>(json, "LockBatchRequestBody");
  Check<LockBatchResponseBody>(json, "LockBatchResponseBody");
  Check<UnlockBatchRequestBody>(json, "UnlockBatchRequestBody");
  Check<ConsumerListBody>(json, "ConsumerListBody");
  return 0;
}
