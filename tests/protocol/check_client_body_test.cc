// CHECK_CLIENT_CONFIG (46)'s body, CheckClientRequestBody, against what the 4.9.8 Java
// SQL92 consumers sent (sql92.json: accepted and rejected, heartbeat.json), and the SQL92
// heartbeat of sql92.json.
#include <gtest/gtest.h>

#include <string>

#include "java_vectors.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/request_code.h"
#include "protocol/response_code.h"

namespace rocketstore::protocol {
namespace {

using testing::CapturedFrame;
using testing::FindFrame;
using testing::LoadFrames;

std::string ErrorOf(std::string_view json) {
  Result<CheckClientRequestBody> b = CheckClientRequestBody::Decode(json);
  EXPECT_FALSE(b.ok()) << json;
  return b.ok() ? "" : b.status().message();
}

TEST(CheckClientRequestBodyTest, MalformedBodiesNameWhatIsWrong) {
  EXPECT_NE(ErrorOf("").find("CheckClientRequestBody"), std::string::npos);
  EXPECT_NE(ErrorOf("[]").find("not a JSON object"), std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"group":1})"), "CheckClientRequestBody: group is not a string");
  EXPECT_EQ(ErrorOf(R"({"subscriptionData":"x"})"),
            "CheckClientRequestBody: subscriptionData is not an object");
  EXPECT_EQ(ErrorOf(R"({"subscriptionData":{"subVersion":"x"}})"),
            "CheckClientRequestBody: subscriptionData.subVersion is not a long");
  const std::string real =
      FindFrame(LoadFrames("java-4.9.8/sql92.json"), "CHECK_CLIENT_CONFIG", false).body_text;
  for (size_t n = 0; n < real.size(); ++n) {
    EXPECT_FALSE(CheckClientRequestBody::Decode(real.substr(0, n)).ok()) << n;
  }
}

TEST(CheckClientRequestBodyTest, AbsentOrNullSubscriptionIsNone) {
  for (const char* json : {R"({"clientId":"c","group":"g"})",
                           R"({"clientId":"c","group":"g","subscriptionData":null})"}) {
    Result<CheckClientRequestBody> b = CheckClientRequestBody::Decode(json);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_FALSE(b->subscription_data.has_value());
    EXPECT_EQ(b->group, "g");
  }
}

TEST(CheckClientRequestBodyTest, JavaSql92ConsumersAcceptedAndRejected) {
  const auto frames = LoadFrames("java-4.9.8/sql92.json");
  const CapturedFrame& good = FindFrame(frames, "CHECK_CLIENT_CONFIG", false, 0);
  const CapturedFrame& bad = FindFrame(frames, "CHECK_CLIENT_CONFIG", false, 1);
  EXPECT_EQ(good.command.code, ToInt(RequestCode::kCheckClientConfig));
  Result<CheckClientRequestBody> g = CheckClientRequestBody::Decode(good.body_text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->client_id, "127.0.0.1@sql-consumer");
  EXPECT_EQ(g->group, "CGV_sql");
  ASSERT_TRUE(g->subscription_data.has_value());
  EXPECT_EQ(g->subscription_data->expression_type, "SQL92");
  EXPECT_EQ(g->subscription_data->sub_string, "a BETWEEN 3 AND 5");
  EXPECT_EQ(g->subscription_data->topic, "JV_sql");
  EXPECT_EQ(g->subscription_data->sub_version, 1796158427531);
  Result<CheckClientRequestBody> b = CheckClientRequestBody::Decode(bad.body_text);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->subscription_data->sub_string, "a >< 5");
  // What the Java broker answered.
  EXPECT_EQ(FindFrame(frames, "CHECK_CLIENT_CONFIG", true, 0).command.code,
            ToInt(ResponseCode::kSuccess));
  const CapturedFrame& refused = FindFrame(frames, "CHECK_CLIENT_CONFIG", true, 1);
  EXPECT_EQ(refused.command.code, ToInt(ResponseCode::kSubscriptionParseFailed));
  EXPECT_NE(refused.command.remark.value_or("").find("at line 1, column 4"), std::string::npos);
}

TEST(CheckClientRequestBodyTest, EncodeIsByteForByteWhatJavaSent) {
  int seen = 0;
  for (const char* file : {"java-4.9.8/sql92.json", "java-4.9.8/heartbeat.json"}) {
    for (const CapturedFrame& f : LoadFrames(file)) {
      if (f.request != "CHECK_CLIENT_CONFIG" || f.is_response) continue;
      ++seen;
      Result<CheckClientRequestBody> b = CheckClientRequestBody::Decode(f.body_text);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      const std::vector<uint8_t> out = b->Encode();
      EXPECT_EQ(std::string(out.begin(), out.end()), f.body_text);
    }
  }
  EXPECT_EQ(seen, 3);
}

TEST(CheckClientRequestBodyTest, Sql92HeartbeatDecodes) {
  const auto frames = LoadFrames("java-4.9.8/sql92.json");
  Result<HeartbeatData> h = HeartbeatData::Decode(FindFrame(frames, "HEART_BEAT", false).body_text);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(h->consumer_data_set.size(), 1u);
  const auto& subs = h->consumer_data_set[0].subscription_data_set;
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].expression_type, "TAG");  // %RETRY%CGV_sql
  EXPECT_EQ(subs[1].expression_type, "SQL92");
  EXPECT_EQ(subs[1].sub_string, "a BETWEEN 3 AND 5");
}

}  // namespace
}  // namespace rocketstore::protocol
