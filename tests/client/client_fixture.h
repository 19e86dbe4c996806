// Test fixture: an in-process name server and broker on loopback ports (store in a temp
// dir), and helpers to create a topic and wait for its route, for the client library's
// integration tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "broker/broker.h"
#include "client/broker_calls.h"
#include "client/pull_consumer.h"
#include "client/route.h"
#include "client/transport.h"
#include "namesrv/name_server.h"
#include "testing/small_store.h"
#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore::client::testing {

// A pull consumer of `group` through the name server at `namesrv`, from the first offset,
// polled by the test (no runner), long-polling 1 s.
inline PullConsumerOptions ManualPullOptions(const std::string& group, const std::string& namesrv) {
  PullConsumerOptions o;
  o.group = group;
  o.namesrv_addrs = {namesrv};
  o.consume_from = ConsumeFrom::kFirst;
  o.long_poll_ms = 1000;
  o.start_runner = false;
  return o;
}

class ClusterFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_OK(ns_->Start());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {namesrv_addr()};
    bo.cluster_name = "TestCluster";
    bo.broker_name = "broker-a";
    bo.store = rocketstore::testing::SmallStoreOptions(dir_.path() + "/store", 8 << 20);
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_OK(broker_->Start());
  }
  void TearDown() override {
    if (broker_) EXPECT_OK(broker_->Stop());
    if (ns_) ns_->Stop();
  }

  std::string namesrv_addr() const { return "127.0.0.1:" + std::to_string(ns_->port()); }
  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(broker_->port()); }

  // Creates the topic on the broker and waits until the name server routes it.
  void CreateTopic(const std::string& topic, int queues) {
    BrokerCall call{&transport_, broker_addr(), 3000};
    ASSERT_OK(call.CreateTopic(topic, queues, queues, 6, false));
    RouteCache routes(transport_, RouteCacheOptions{{namesrv_addr()}, 0, 3000});
    for (int i = 0; i < 200; ++i) {
      auto r = routes.Refresh(topic);
      if (r.ok() && (*r)->WritableQueues(topic).size() == static_cast<size_t>(queues)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "no route for " << topic << " after 4 s";
  }

  rocketstore::testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  Transport transport_;
};

}  // namespace rocketstore::client::testing
