// bench/sql_filter_eval: what does a SQL92 subscription cost per message on the pull path?
//
// A typical 3-term expression (default: region = 'eu' AND price > 100 AND TAGS IN
// ('TagA', 'TagB')) against stored records with 8 properties (the producer's UNIQ_KEY,
// KEYS, TAGS, WAIT, CLUSTER, and region, price, channel), half of them matching, through
// SqlMessageFilter::MatchesRecord — what GetMessage calls for every record it reads:
// decode the record header, find the expression's properties in one pass, evaluate.
// Also reported: the evaluation alone (values already looked up) and the compile time.
//
//   sql_filter_eval [--messages 1000000] [--rounds 5] [--sql "a = 1 AND ..."]
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "broker/service/sql_filter.h"
#include "store/format/message_record.h"

namespace {

using namespace rocketstore;  // NOLINT(build/namespaces)

std::vector<std::vector<uint8_t>> MakeRecords(int distinct) {
  std::vector<std::vector<uint8_t>> out;
  const char* regions[] = {"eu", "us", "eu", "ap"};
  for (int i = 0; i < distinct; ++i) {
    const std::string props =
        "UNIQ_KEY\x01"
        "7F0000010B3C18B4AAC2" +
        std::to_string(100000 + i) + "\x02KEYS\x01order-" + std::to_string(i) + "\x02TAGS\x01" +
        (i % 3 ? "TagA" : "TagC") +
        "\x02WAIT\x01true\x02"
        "CLUSTER\x01"
        "DefaultCluster\x02region\x01" +
        regions[i % 4] + "\x02price\x01" + std::to_string(50 + (i * 37) % 200) +
        "\x02"
        "channel\x01web";
    const std::string body(200, 'x');
    format::MessageToStore m;
    m.topic = "BenchTopic";
    m.body = body;
    m.properties = props;
    std::vector<uint8_t> rec(format::EncodedRecordSize(m));
    format::EncodeRecord(m, 0, i, i * 400, 1700000000000, rec.data());
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rocketstore::bench;  // NOLINT(build/namespaces)
  int64_t messages = 1'000'000;
  int rounds = 5;
  std::string sql = "region = 'eu' AND price > 100 AND TAGS IN ('TagA', 'TagB')";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--messages") {
      messages = std::stoll(FlagValue(argc, argv, i));
    } else if (a == "--rounds") {
      rounds = std::stoi(FlagValue(argc, argv, i));
    } else if (a == "--sql") {
      sql = FlagValue(argc, argv, i);
    } else {
      std::fprintf(stderr, "usage: sql_filter_eval [--messages N] [--rounds R] [--sql TEXT]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const int64_t c0 = NowNanos();
  constexpr int kCompiles = 10000;
  for (int i = 0; i < kCompiles; ++i) {
    if (!filter::SqlExpression::Compile(sql).ok()) return 1;
  }
  const int64_t compile_ns = (NowNanos() - c0) / kCompiles;
  auto compiled = filter::SqlExpression::Compile(sql);
  if (!compiled.ok()) {
    std::fprintf(stderr, "%s\n", compiled.status().message().c_str());
    return 2;
  }
  auto shared = std::make_shared<const filter::SqlExpression>(std::move(compiled).value());
  broker::SqlMessageFilter f(shared);
  const auto records = MakeRecords(1024);
  std::printf("sql_filter_eval: \"%s\"; compile %s; %lld messages x %d rounds\n", sql.c_str(),
              HumanNanos(compile_ns).c_str(), static_cast<long long>(messages), rounds);
  // For "Evaluate only": every name gets the value of the record-0 style message.
  std::vector<std::optional<std::string_view>> values;
  for (const std::string& n : shared->property_names()) {
    values.emplace_back(n == "price" ? "150" : n == "TAGS" ? "TagA" : "eu");
  }
  for (int r = 0; r < rounds; ++r) {
    int64_t matched = 0;
    const int64_t t0 = NowNanos();
    for (int64_t i = 0; i < messages; ++i) matched += f.MatchesRecord(records[i & 1023]);
    const int64_t t1 = NowNanos();
    int64_t evals = 0;
    for (int64_t i = 0; i < messages; ++i) {
      values[0] = (i & 1) ? "eu" : "us";
      evals += shared->Matches(values);
    }
    const int64_t t2 = NowNanos();
    std::printf(
        "round %d: MatchesRecord %.1f ns/msg (%.0f%% matched), Evaluate only %.1f ns (%lld)\n",
        r + 1, static_cast<double>(t1 - t0) / static_cast<double>(messages),
        100.0 * static_cast<double>(matched) / static_cast<double>(messages),
        static_cast<double>(t2 - t1) / static_cast<double>(messages),
        static_cast<long long>(evals));
  }
  return 0;
}
