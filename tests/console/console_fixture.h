// A name server + broker on a temporary store (port 0), with messages put straight into
// the store, under a ConsoleApi: what console_api_test and console_http_test share.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <string>

#include "base/clock.h"
#include "broker/broker.h"
#include "client/pull_consumer.h"
#include "console/console_api.h"
#include "console/rate_sampler.h"
#include "namesrv/name_server.h"
#include "testing/small_store.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore::console {

class ConsoleFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    bo.store = rocketstore::testing::SmallStoreOptions(dir_.path() + "/store");
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    broker::TopicConfig t;
    t.name = "TopicTest";
    ASSERT_TRUE(broker_->topic_service()->CreateOrUpdate(t).ok());
    for (int i = 0; i < 12; ++i) {
      auto r = broker_->store().PutMessage(testing::MakeTestMessage(i).View());
      ASSERT_TRUE(r.ok()) << r.error;
    }
    // Let the dispatcher build the consume queues and the index.
    for (int i = 0; i < 200 && broker_->store().DispatchBehindBytes() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    broker_->offsets().Commit("G1", "TopicTest", 0, 1);  // queue 0 holds 3: lag 2 there
    sampler_ = std::make_unique<RateSampler>(ConsoleReadings(*broker_));
    api_ = MakeApi(false);
  }
  void TearDown() override {
    api_.reset();
    if (broker_) {
      EXPECT_TRUE(broker_->Stop().ok());
    }
    if (ns_) ns_->Stop();
  }
  std::unique_ptr<ConsoleApi> MakeApi(bool read_only) {
    ConsoleOptions o;
    o.read_only = read_only;
    o.version = "test";
    return std::make_unique<ConsoleApi>(*broker_, *sampler_, Clock::Real(), o);
  }
  // A pull consumer of `group` from the first offset, driven by the test (no runner, no
  // auto-commit), long-polling 500 ms.
  client::PullConsumerOptions ManualConsumerOptions(const std::string& group) const {
    client::PullConsumerOptions o;
    o.group = group;
    o.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    o.consume_from = client::ConsumeFrom::kFirst;
    o.long_poll_ms = 500;
    o.start_runner = false;
    o.auto_commit = false;
    return o;
  }
  static rapidjson::Document Json(const HttpReply& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.body;
    return d;
  }
  HttpReply Call(const std::string& method, const std::string& path,
                 std::map<std::string, std::string> params = {}) {
    return api_->Handle({method, path, std::move(params), ""});
  }

  rocketstore::testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  std::unique_ptr<RateSampler> sampler_;
  std::unique_ptr<ConsoleApi> api_;
};

}  // namespace rocketstore::console
