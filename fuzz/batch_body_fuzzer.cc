// libFuzzer target for the SEND_BATCH_MESSAGE body decoder (protocol/bodies/batch_body.h).
// On arbitrary bytes: an error is kInvalidArgument with the decoder's prefix; a success
// yields views that tile the input exactly — re-encoding them with AppendBatchRecord
// reproduces the input, except for each record's magic and CRC words, which the client
// writes as 0 and the decoder does not check.
#include <cstdint>
#include <span>
#include <vector>

#include "base/coding.h"
#include "fuzz_check.h"  // this directory
#include "protocol/bodies/batch_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rocketstore;            // NOLINT(build/namespaces)
  using namespace rocketstore::protocol;  // NOLINT(build/namespaces)
  const std::span<const uint8_t> body(data, size);
  Result<std::vector<BatchMessageView>> r = DecodeBatchBody(body);
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(r.status().message().rfind("batch body: ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(!r->empty());
  std::vector<uint8_t> again;
  std::vector<uint8_t> expected(body.begin(), body.end());
  for (const BatchMessageView& m : *r) {
    FUZZ_CHECK(m.body.empty() ||
               (m.body.data() >= data && m.body.data() + m.body.size() <= data + size));
    const size_t at = again.size();
    AppendBatchRecord(m.flag, m.body, m.properties, &again);
    FUZZ_CHECK(again.size() <= expected.size());
    EncodeFixed32BE(expected.data() + at + 4, 0);
    EncodeFixed32BE(expected.data() + at + 8, 0);
  }
  FUZZ_CHECK(again == expected);
  return 0;
}
