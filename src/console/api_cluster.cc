// The Cluster screen's endpoint: every broker the name server lists. The in-process
// broker is read directly (its store's health, disk, commit log and the broker's own
// GET_BROKER_RUNTIME_INFO table); the others come from the ClusterProbe (their 28 and 26
// answers, fetched in the background, or why they could not be asked). Every broker's
// health is judged by client::AssessBrokerHealth (as `rocketstore cluster status` judges
// it); the local one's store health comes first (a sticky I/O error, a full disk: what no
// remote question can see).
#include <algorithm>
#include <cstdlib>

#include "client/admin_types.h"
#include "client/broker_health.h"
#include "console/api_util.h"
#include "console/cluster_probe.h"
#include "console/console_api.h"

namespace rocketstore::console {

using internal::JsonReply;
using internal::JsonWriter;
using internal::Str;

namespace {

std::string Get(const std::map<std::string, std::string>& t, const std::string& key) {
  auto it = t.find(key);
  return it == t.end() ? std::string() : it->second;
}

// The first of 28's "<10 s> <60 s> <600 s>" rates.
double FirstRate(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

const char* StateName(BrokerProbe::State s) {
  switch (s) {
    case BrokerProbe::State::kAsking:
      return "asking";
    case BrokerProbe::State::kAnswered:
      return "answered";
    case BrokerProbe::State::kUnreachable:
      return "unreachable";
  }
  return "unknown";
}

// The members every broker has, read from a GET_BROKER_RUNTIME_INFO table.
void WriteRuntime(JsonWriter& w, const std::map<std::string, std::string>& t) {
  w.Key("version"), Str(w, Get(t, "brokerVersionDesc"));
  w.Key("bootTimestamp"), w.Int64(std::atoll(Get(t, "bootTimestamp").c_str()));
  w.Key("runtime"), Str(w, Get(t, "runtime"));
}

void WriteHealth(JsonWriter& w, const client::BrokerHealth& h) {
  w.Key("health");
  w.StartObject();
  w.Key("state"), Str(w, h.state);
  w.Key("writable"), w.Bool(h.writable);
  w.Key("reason"), Str(w, h.reason);
  w.EndObject();
}

// The local broker: its store's own verdict when it refuses writes (the cause and its full
// text), else the judgement every broker gets, from its own 28 table and 26 properties and
// the name server's route of its own topic (as the probe last saw it).
client::BrokerHealth LocalHealth(broker::Broker& broker, const client::StringMap& runtime,
                                 const std::optional<ClusterView>& view) {
  const StoreHealth& store = broker.store().health();
  if (!store.Writable()) {
    std::string state(store.Cause());
    std::replace(state.begin(), state.end(), '_', ' ');  // "io_error" -> "io error"
    return client::BrokerHealth{state, false, store.Reason()};
  }
  Result<client::StringMap> config =
      broker.broker_config() != nullptr
          ? Result<client::StringMap>(client::ParseJavaProperties(broker.broker_config()->Text()))
          : Result<client::StringMap>(Unavailable("the broker's config service is not started"));
  const int route_perm =
      view && config.ok() && client::OwnTopicRouteApplies(0, *config) ? view->local_route_perm : -1;
  return client::AssessBrokerHealth(0, runtime, config, route_perm);
}

void WriteRemote(JsonWriter& w, const BrokerProbe& b) {
  const auto& t = b.runtime;
  w.StartObject();
  w.Key("brokerName"), Str(w, b.broker_name);
  w.Key("brokerId"), w.Int64(b.broker_id);
  w.Key("cluster"), Str(w, b.cluster);
  w.Key("address"), Str(w, b.address);
  w.Key("local"), w.Bool(false);
  w.Key("state"), Str(w, StateName(b.state));
  w.Key("error"), Str(w, b.error);
  w.Key("askedMs"), w.Int64(b.asked_ms);
  w.Key("answeredMs"), w.Int64(b.answered_ms);
  WriteRuntime(w, t);
  if (b.state == BrokerProbe::State::kAsking) {
    w.Key("health");
    w.StartObject();
    w.Key("state"), Str(w, "asking");
    w.Key("writable"), w.Null();
    w.Key("reason"), Str(w,
                         "GET_BROKER_RUNTIME_INFO, GET_BROKER_CONFIG and its topic's route "
                         "asked, not all answered yet");
    w.EndObject();
  } else {
    WriteHealth(w, b.health);
  }
  w.Key("disk");
  w.StartObject();
  if (!t.empty()) {
    // 28's commitLogDiskRatio: the used ratio of the commit log's file system (0..1; -1
    // when the broker could not read it: then left out).
    const double ratio = std::strtod(Get(t, "commitLogDiskRatio").c_str(), nullptr);
    if (ratio >= 0) w.Key("usedRatio"), w.Double(ratio);
    w.Key("capacity"), Str(w, Get(t, "commitLogDirCapacity"));
  }
  w.EndObject();
  w.Key("commitLog");
  w.StartObject();
  if (!t.empty()) {
    const int64_t min = std::atoll(Get(t, "commitLogMinOffset").c_str());
    const int64_t max = std::atoll(Get(t, "commitLogMaxOffset").c_str());
    w.Key("minOffset"), w.Int64(min);
    w.Key("maxOffset"), w.Int64(max);
    w.Key("bytes"), w.Int64(max - min);
    w.Key("flushBehind"), Str(w, Get(t, "remainHowManyDataToFlush"));
    w.Key("dispatchBehindBytes"), w.Int64(std::atoll(Get(t, "dispatchBehindBytes").c_str()));
  }
  w.EndObject();
  w.Key("rates");
  w.StartObject();
  if (!t.empty()) {
    w.Key("putTps"), w.Double(FirstRate(Get(t, "putTps")));
    w.Key("getTps"), w.Double(FirstRate(Get(t, "getTransferedTps")));
  }
  w.EndObject();
  w.EndObject();
}

void WriteLocalBroker(JsonWriter& w, broker::Broker& broker_, const RateSampler& rates_,
                      const std::optional<ClusterView>& view) {
  MessageStore& store = broker_.store();
  const broker::BrokerOptions& bo = broker_.options();
  const StoreOptions& so = store.options();
  auto disk = broker_.fs().GetDiskUsage(so.root_dir);
  const int64_t max_phy = store.MaxPhysicalOffset().value();
  const int64_t min_phy = store.MinPhysicalOffset().value();
  const int64_t flushed = store.FlushedPhysicalOffset().value();
  const broker::RuntimeInfoService* info = broker_.runtime_info();
  const std::map<std::string, std::string> runtime =
      info ? info->Collect() : std::map<std::string, std::string>{};
  w.StartObject();
  w.Key("brokerName"), Str(w, bo.broker_name);
  w.Key("brokerId"), w.Int(0);
  w.Key("cluster"), Str(w, bo.cluster_name);
  w.Key("address"), Str(w, broker_.address());
  w.Key("local"), w.Bool(true);
  w.Key("state"), Str(w, "local");
  w.Key("error"), Str(w, "");
  WriteRuntime(w, runtime);
  w.Key("storeDir"), Str(w, so.root_dir);
  w.Key("flushDiskType"),
      Str(w, so.flush_disk_type == FlushDiskType::kSyncFlush ? "SYNC_FLUSH" : "ASYNC_FLUSH");
  WriteHealth(w, LocalHealth(broker_, runtime, view));
  w.Key("disk");
  w.StartObject();
  if (disk.ok()) {
    w.Key("totalBytes"), w.Uint64(disk->total_bytes);
    w.Key("freeBytes"), w.Uint64(disk->free_bytes);
    w.Key("usedRatio"),
        w.Double(disk->total_bytes == 0 ? 0.0
                                        : 1.0 - static_cast<double>(disk->free_bytes) /
                                                    static_cast<double>(disk->total_bytes));
  } else {
    w.Key("error"), Str(w, disk.status().ToString());
  }
  w.Key("commitLogBytes"), w.Int64(max_phy - min_phy);
  // The settings retention's next round uses: UPDATE_BROKER_CONFIG (25) changes them at
  // run time, so not the options the store was opened with.
  const RetentionOptions retention = store.retention_options();
  w.Key("diskMaxUsedSpaceRatio"), w.Int(retention.disk_max_used_space_ratio);
  w.Key("diskSpaceCleanForciblyRatio"), w.Int(retention.disk_space_clean_forcibly_ratio);
  w.Key("diskSpaceWarningLevelRatio"), w.Int(retention.disk_space_warning_level_ratio);
  w.Key("fileReservedTimeHours"), w.Int64(retention.file_reserved_time_ms / 3600000);
  w.EndObject();
  w.Key("commitLog");
  w.StartObject();
  w.Key("minOffset"), w.Int64(min_phy);
  w.Key("maxOffset"), w.Int64(max_phy);
  w.Key("bytes"), w.Int64(max_phy - min_phy);
  w.Key("flushedOffset"), w.Int64(flushed);
  w.Key("flushBehindBytes"), w.Int64(std::max<int64_t>(0, max_phy - flushed));
  w.Key("dispatchBehindBytes"), w.Int64(store.DispatchBehindBytes());
  w.EndObject();
  w.Key("rates");
  w.StartObject();
  // The broker's own 10 s rates (GET_BROKER_RUNTIME_INFO's putTps / getTransferedTps).
  const broker::StatsSampler* bs = broker_.stats_sampler();
  w.Key("putTps"), w.Double(bs ? bs->PutTps(10) : rates_.Latest("cluster:put"));
  w.Key("getTps"), w.Double(bs ? bs->GetTps(10) : rates_.Latest("cluster:get"));
  w.Key("putBytesPerSec"), w.Double(rates_.Latest("cluster:putBytes"));
  w.Key("putSeries"), internal::WriteSeries(w, rates_.Series("cluster:put"));
  w.Key("getSeries"), internal::WriteSeries(w, rates_.Series("cluster:get"));
  w.EndObject();
  w.EndObject();
}

}  // namespace

HttpReply ConsoleApi::Cluster() {
  const broker::BrokerOptions& bo = broker_.options();
  std::optional<ClusterView> view;
  if (probe_) view = probe_->Snapshot();
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("version"), Str(w, options_.version);
    w.Key("nowMs"), w.Int64(clock_.NowMillis());
    w.Key("readOnlyConsole"), w.Bool(options_.read_only);
    w.Key("clusterName"), Str(w, bo.cluster_name);
    w.Key("namesrv"), Str(w, options_.namesrv_address);
    // How the other brokers were found: the name server's GET_BROKER_CLUSTER_INFO,
    // asked in the background (roundMs), or why it could not be.
    w.Key("discovery");
    w.StartObject();
    if (!view) {
      w.Key("state"), Str(w, "off");
      w.Key("error"), Str(w, "the console does not ask the name server (no probe)");
    } else if (view->round_ms < 0) {
      w.Key("state"), Str(w, "asking");
      w.Key("error"), Str(w, "");
    } else {
      w.Key("state"), Str(w, view->namesrv_error.empty() ? "ok" : "namesrv unreachable");
      w.Key("error"), Str(w, view->namesrv_error);
    }
    w.Key("namesrv"), Str(w, view ? view->namesrv : "");
    w.Key("roundMs"), w.Int64(view ? view->round_ms : -1);
    w.EndObject();
    w.Key("brokers");
    w.StartArray();
    WriteLocalBroker(w, broker_, rates_, view);
    if (view) {
      for (const BrokerProbe& b : view->brokers) WriteRemote(w, b);
    }
    w.EndArray();
  });
}

}  // namespace rocketstore::console
