// The Cluster screen's brokers: the name server's GET_BROKER_CLUSTER_INFO lists them, the
// in-process broker is read directly, the others answer GET_BROKER_RUNTIME_INFO (28)
// through the ClusterProbe — a second real broker, one registered but gone (nothing
// listens), one that accepts and never answers (a timeout), and a name server that is not
// there: the page answers 200 every time and says which broker is unreachable and why.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "console/cluster_probe.h"
#include "console_fixture.h"
#include "io/fault_injection_file_system.h"
#include "testing/serve_process.h"
#include "testing/small_store.h"

namespace rocketstore::console {
namespace {

// A loopback socket that accepts connections (the kernel's backlog) and never answers.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 && ::listen(fd_, 8) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~SilentListener() { Close(); }
  // Connections still in the backlog are reset: their reads fail at once.
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

class ConsoleClusterTest : public ConsoleFixture {
 protected:
  std::string NamesrvAddr() const { return "127.0.0.1:" + std::to_string(ns_->port()); }
  // A second broker `name` of the fixture's name server, its small store under the temp dir.
  broker::BrokerOptions SecondBrokerOptions(const std::string& name) const {
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {NamesrvAddr()};
    bo.broker_name = name;
    bo.store = rocketstore::testing::SmallStoreOptions(dir_.path() + "/store-" + name);
    return bo;
  }
  void RegisterFake(const std::string& name, const std::string& addr) {
    namesrv::BrokerRegistration r;
    r.cluster_name = broker_->options().cluster_name;
    r.broker_name = name;
    r.broker_addr = addr;
    ns_->routes().Register(r, Clock::Real().NowMillis());
  }
  static void WaitForAnswers(const ClusterProbe& probe) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (probe.outstanding() > 0 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(probe.outstanding(), 0u);
  }
  static const rapidjson::Value* Broker(const rapidjson::Document& d, const std::string& name) {
    for (const auto& b : d["brokers"].GetArray()) {
      if (b["brokerName"].GetString() == name) return &b;
    }
    return nullptr;
  }
};

TEST_F(ConsoleClusterTest, ListsEveryBrokerOfTheNameServerWithItsRuntimeInfo) {
  broker::Broker second(SecondBrokerOptions("broker-b"));
  ASSERT_TRUE(second.Start().ok());
  ASSERT_TRUE(second.store().PutMessage(testing::MakeTestMessage(0).View()).ok());
  ASSERT_TRUE(second.RegisterAll().ok());
  ASSERT_TRUE(broker_->RegisterAll().ok());
  // Registered but gone: nothing listens on its port.
  const std::string gone = "127.0.0.1:" + std::to_string(rocketstore::testing::FreeLoopbackPort());
  RegisterFake("broker-gone", gone);
  // Registered, accepts connections, never answers: the question times out.
  SilentListener silent;
  ASSERT_NE(silent.port(), 0);
  RegisterFake("broker-silent", "127.0.0.1:" + std::to_string(silent.port()));

  ClusterProbe probe({{NamesrvAddr()}, broker_->address(), 500, broker_->options().broker_name});
  api_ = std::make_unique<ConsoleApi>(*broker_, *sampler_, Clock::Real(), ConsoleOptions{}, &probe);
  // Before the first round: the local broker only, and the page says it is asking.
  auto before = Json(Call("GET", "/api/cluster"));
  EXPECT_EQ(before["discovery"]["state"].GetString(), std::string("asking"));
  EXPECT_EQ(before["brokers"].Size(), 1u);

  probe.RunOnce(1000);
  WaitForAnswers(probe);
  HttpReply r = Call("GET", "/api/cluster");
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_EQ(d["discovery"]["state"].GetString(), std::string("ok")) << r.body;
  ASSERT_EQ(d["brokers"].Size(), 4u) << r.body;
  const auto& local = d["brokers"][0];
  EXPECT_TRUE(local["local"].GetBool());
  EXPECT_EQ(local["address"].GetString(), broker_->address());
  EXPECT_EQ(local["version"].GetString(), std::string("V4_9_8"));  // 28's brokerVersionDesc
  EXPECT_EQ(local["health"]["state"].GetString(), std::string("ok")) << r.body;
  EXPECT_TRUE(local["health"]["writable"].GetBool());

  const rapidjson::Value* b = Broker(d, "broker-b");
  ASSERT_NE(b, nullptr) << r.body;
  EXPECT_FALSE((*b)["local"].GetBool());
  EXPECT_EQ((*b)["address"].GetString(), second.address());
  EXPECT_EQ((*b)["state"].GetString(), std::string("answered")) << r.body;
  EXPECT_EQ((*b)["version"].GetString(), std::string("V4_9_8"));
  EXPECT_EQ((*b)["health"]["state"].GetString(), std::string("ok")) << r.body;
  EXPECT_TRUE((*b)["health"]["writable"].GetBool());
  EXPECT_EQ((*b)["health"]["reason"].GetString(), std::string());
  EXPECT_EQ((*b)["answeredMs"].GetInt64(), 1000);
  EXPECT_EQ((*b)["commitLog"]["maxOffset"].GetInt64(), second.store().MaxPhysicalOffset().value());
  EXPECT_TRUE((*b)["rates"].HasMember("putTps"));
  EXPECT_GT((*b)["disk"]["usedRatio"].GetDouble(), 0.0);

  const rapidjson::Value* g = Broker(d, "broker-gone");
  ASSERT_NE(g, nullptr) << r.body;
  EXPECT_EQ((*g)["state"].GetString(), std::string("unreachable"));
  EXPECT_EQ((*g)["health"]["state"].GetString(), std::string("unreachable"));
  EXPECT_FALSE((*g)["health"]["writable"].GetBool());
  EXPECT_NE(std::string((*g)["health"]["reason"].GetString()).find("GET_BROKER_RUNTIME_INFO (28)"),
            std::string::npos)
      << r.body;
  EXPECT_NE(std::string((*g)["error"].GetString()).find(gone), std::string::npos) << r.body;
  EXPECT_EQ((*g)["answeredMs"].GetInt64(), -1);
  EXPECT_FALSE((*g)["commitLog"].HasMember("maxOffset"));  // no numbers for a broker not heard

  const rapidjson::Value* s = Broker(d, "broker-silent");
  ASSERT_NE(s, nullptr) << r.body;
  EXPECT_EQ((*s)["state"].GetString(), std::string("unreachable"));
  EXPECT_NE(std::string((*s)["error"].GetString()).find("no response"), std::string::npos)
      << r.body;

  // The second broker stops (it unregisters): the next round drops it.
  ASSERT_TRUE(second.Stop().ok());
  probe.RunOnce(2000);
  WaitForAnswers(probe);
  auto after = Json(Call("GET", "/api/cluster"));
  EXPECT_EQ(Broker(after, "broker-b"), nullptr);
  EXPECT_EQ(after["discovery"]["roundMs"].GetInt64(), 2000);
}

// Health is judged for every broker as `rocketstore cluster status` judges it
// (client::AssessBrokerHealth): a remote broker started with brokerPermission=4 (read
// only) is not writable and says why; one that is gone is unreachable with the cause; the
// local broker whose writes the name server wiped (205) is "wiped".
TEST_F(ConsoleClusterTest, JudgesEveryBrokersHealthAsClusterStatusDoes) {
  broker::BrokerOptions bo = SecondBrokerOptions("broker-ro");
  bo.broker_permission = 4;  // PERM_READ only
  broker::Broker read_only(bo);
  ASSERT_TRUE(read_only.Start().ok());
  ASSERT_TRUE(read_only.RegisterAll().ok());
  ASSERT_TRUE(broker_->RegisterAll().ok());
  const std::string gone = "127.0.0.1:" + std::to_string(rocketstore::testing::FreeLoopbackPort());
  RegisterFake("broker-gone", gone);

  ClusterProbe probe({{NamesrvAddr()}, broker_->address(), 2000, broker_->options().broker_name});
  api_ = std::make_unique<ConsoleApi>(*broker_, *sampler_, Clock::Real(), ConsoleOptions{}, &probe);
  probe.RunOnce(1000);
  WaitForAnswers(probe);
  HttpReply r = Call("GET", "/api/cluster");
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  ASSERT_EQ(d["brokers"].Size(), 3u) << r.body;
  EXPECT_EQ(d["brokers"][0]["health"]["state"].GetString(), std::string("ok")) << r.body;

  const rapidjson::Value* ro = Broker(d, "broker-ro");
  ASSERT_NE(ro, nullptr) << r.body;
  EXPECT_EQ((*ro)["state"].GetString(), std::string("answered")) << r.body;
  const auto& rh = (*ro)["health"];
  EXPECT_EQ(rh["state"].GetString(), std::string("read only")) << r.body;
  EXPECT_FALSE(rh["writable"].GetBool());
  EXPECT_NE(std::string(rh["reason"].GetString()).find("brokerPermission 4 has no write bit"),
            std::string::npos)
      << r.body;

  const rapidjson::Value* g = Broker(d, "broker-gone");
  ASSERT_NE(g, nullptr) << r.body;
  const auto& gh = (*g)["health"];
  EXPECT_EQ(gh["state"].GetString(), std::string("unreachable"));
  EXPECT_FALSE(gh["writable"].GetBool());
  EXPECT_NE(std::string(gh["reason"].GetString()).find(gone), std::string::npos) << r.body;

  // WIPE_WRITE_PERM_OF_BROKER (205) of the local broker on the name server: the next round
  // reads its own topic's route without the write bit.
  EXPECT_GT(ns_->routes().WipeWritePerm(broker_->options().broker_name), 0);
  probe.RunOnce(2000);
  WaitForAnswers(probe);
  r = Call("GET", "/api/cluster");
  d = Json(r);
  const auto& lh = d["brokers"][0]["health"];
  EXPECT_EQ(lh["state"].GetString(), std::string("wiped")) << r.body;
  EXPECT_FALSE(lh["writable"].GetBool());
  EXPECT_NE(std::string(lh["reason"].GetString()).find("WIPE_WRITE_PERM_OF_BROKER"),
            std::string::npos)
      << r.body;
  ASSERT_TRUE(read_only.Stop().ok());
}

TEST_F(ConsoleClusterTest, AnUnreachableNameServerIsShownNotAFailedPage) {
  const std::string nowhere =
      "127.0.0.1:" + std::to_string(rocketstore::testing::FreeLoopbackPort());
  ClusterProbe probe({{nowhere}, broker_->address(), 500, broker_->options().broker_name});
  api_ = std::make_unique<ConsoleApi>(*broker_, *sampler_, Clock::Real(), ConsoleOptions{}, &probe);
  probe.RunOnce(7);
  HttpReply r = Call("GET", "/api/cluster");
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_EQ(d["discovery"]["state"].GetString(), std::string("namesrv unreachable"));
  EXPECT_NE(std::string(d["discovery"]["error"].GetString()).find(nowhere), std::string::npos)
      << r.body;
  ASSERT_EQ(d["brokers"].Size(), 1u);
  EXPECT_TRUE(d["brokers"][0]["local"].GetBool());
}

// A sticky I/O error in the store (injected through the fault-injecting FileSystem the
// broker runs on): the Cluster screen says the store is not writable, and why; the disk
// numbers are those of the broker's own file system.
TEST(ConsoleStoreHealthTest, UnwritableStoreShowsTheReason) {
  FaultInjectionFileSystem fs;
  broker::BrokerOptions bo;
  bo.server.port = 0;
  bo.store.root_dir = "/store";
  bo.store.commit_log_segment_size = 1 << 20;
  bo.store.index_hash_slot_num = 256;
  bo.store.index_num = 4096;
  bo.store.consume_queue_units_per_file = 1024;
  bo.store.flush_disk_type = FlushDiskType::kSyncFlush;
  broker::Broker b(bo, fs, Clock::Real());
  ASSERT_TRUE(b.Start().ok());
  RateSampler sampler(ConsoleReadings(b));
  ConsoleApi api(b, sampler, Clock::Real(), ConsoleOptions{});
  auto cluster = [&] {
    HttpReply r = api.Handle({"GET", "/api/cluster", {}, ""});
    EXPECT_EQ(r.status, 200) << r.body;
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    return d;
  };
  {
    auto d = cluster();
    EXPECT_EQ(d["brokers"][0]["health"]["state"].GetString(), std::string("ok"));
    EXPECT_EQ(d["brokers"][0]["disk"]["totalBytes"].GetUint64(),
              FaultInjectionFileSystem::kDefaultCapacityBytes);
  }
  ASSERT_TRUE(b.store().PutMessage(rocketstore::testing::MakeTestMessage(0).View()).ok());
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  (void)b.store().PutMessage(rocketstore::testing::MakeTestMessage(1).View());
  ASSERT_FALSE(b.store().health().Writable());
  auto d = cluster();
  const auto& health = d["brokers"][0]["health"];
  EXPECT_EQ(health["state"].GetString(), std::string("io error"));  // StoreHealth's cause
  EXPECT_FALSE(health["writable"].GetBool());
  EXPECT_EQ(health["reason"].GetString(), b.store().health().Reason());
  EXPECT_NE(std::string(health["reason"].GetString()).find("Input/output error"), std::string::npos)
      << health["reason"].GetString();
  fs.ClearFailures();
  (void)b.Stop();
}

// Deleting or creating a topic from the console requests the registration round and
// answers: the HTTP worker is not held while a name server that accepts but never answers
// is asked (the registrar waits register_timeout_ms for it, on its own thread).
TEST(ConsoleTopicChangeTest, AnswersWithoutWaitingForTheNameServers) {
  SilentListener silent;
  ASSERT_NE(silent.port(), 0);
  FaultInjectionFileSystem fs;
  broker::BrokerOptions bo;
  bo.server.port = 0;
  bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(silent.port())};
  bo.register_timeout_ms = 60000;  // a wait for the round would outlast the bound below
  bo.store.root_dir = "/store";
  bo.store.commit_log_segment_size = 1 << 20;
  bo.store.index_hash_slot_num = 256;
  bo.store.index_num = 4096;
  bo.store.consume_queue_units_per_file = 1024;
  broker::Broker b(bo, fs, Clock::Real());
  ASSERT_TRUE(b.Start().ok());
  RateSampler sampler(ConsoleReadings(b));
  ConsoleApi api(b, sampler, Clock::Real(), ConsoleOptions{});
  const auto start = std::chrono::steady_clock::now();
  HttpReply c = api.Handle({"POST", "/api/topics", {{"topic", "Quick"}}, ""});
  EXPECT_EQ(c.status, 200) << c.body;
  EXPECT_NE(c.body.find("\"routes\":\"registration requested\""), std::string::npos) << c.body;
  HttpReply d = api.Handle({"POST", "/api/topics/delete", {{"topic", "Quick"}}, ""});
  EXPECT_EQ(d.status, 200) << d.body;
  EXPECT_NE(d.body.find("\"routes\":\"registration requested\""), std::string::npos) << d.body;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_FALSE(b.topics().Find("Quick"));
  silent.Close();  // the registrar's pending REGISTER_BROKER fails now, so Stop is quick
  (void)b.Stop();
}

}  // namespace
}  // namespace rocketstore::console
