#include "client/admin_ops_types.h"

#include <fmt/format.h>

#include "client/fastjson.h"

namespace rocketstore::client {

namespace {
Result<FjValue> Root(std::string_view json, std::string_view what) {
  auto v = ParseFastjson(json);
  if (!v.ok()) return v.status().WithContext(what);
  if (!v->is_object()) return Corruption(std::string(what) + ": body is not a JSON object");
  return v;
}
BrokerStatsItem StatsItemOf(const FjValue* v) {
  if (v == nullptr || !v->is_object()) return {};
  return {v->Int("sum"), v->Double("tps"), v->Double("avgpt")};
}
}  // namespace

Result<ConsumerOffsetTable> ConsumerOffsetTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ConsumerOffsetSerializeWrapper"));
  ConsumerOffsetTable out;
  const FjValue* t = v.Find("offsetTable");
  if (t == nullptr || !t->is_object()) {
    return Corruption("ConsumerOffsetSerializeWrapper: no offsetTable object");
  }
  for (const auto& [key, queues] : t->members) {
    auto& m = out.offsets[key.text];
    for (const auto& [qid, off] : queues.members)
      m[static_cast<int32_t>(qid.AsInt())] = off.AsInt();
  }
  return out;
}

Result<BrokerStatsData> BrokerStatsData::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "BrokerStatsData"));
  return BrokerStatsData{StatsItemOf(v.Find("statsMinute")), StatsItemOf(v.Find("statsHour")),
                         StatsItemOf(v.Find("statsDay"))};
}

Result<ConsumeStatsList> ConsumeStatsList::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ConsumeStatsList"));
  ConsumeStatsList out;
  out.broker_addr = v.Str("brokerAddr");
  out.total_diff = v.Int("totalDiff");
  if (const FjValue* l = v.Find("consumeStatsList"); l != nullptr && l->is_array()) {
    for (const auto& m : l->items) {
      for (const auto& [group, stats] : m.members) {
        std::vector<ConsumeStats> list;
        for (const auto& s : stats.items) {
          RS_ASSIGN_OR_RETURN(ConsumeStats cs, ConsumeStats::Decode(s.ToJson()));
          list.push_back(std::move(cs));
        }
        out.groups.emplace_back(group.text, std::move(list));
      }
    }
  }
  return out;
}

Result<ConsumeTimeSpans> ConsumeTimeSpans::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "QueryConsumeTimeSpanBody"));
  ConsumeTimeSpans out;
  if (const FjValue* l = v.Find("consumeTimeSpanSet"); l != nullptr && l->is_array()) {
    for (const auto& s : l->items) {
      QueueTimeSpan t;
      if (const FjValue* q = s.Find("messageQueue")) t.queue = QueueFromFastjson(*q);
      t.min_timestamp = s.Int("minTimeStamp");
      t.max_timestamp = s.Int("maxTimeStamp");
      t.consume_timestamp = s.Int("consumeTimeStamp");
      t.delay_time = s.Int("delayTime");
      out.spans.push_back(std::move(t));
    }
  }
  return out;
}

Result<ConsumeQueueView> ConsumeQueueView::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "QueryConsumeQueueResponseBody"));
  ConsumeQueueView out;
  if (const FjValue* s = v.Find("subscriptionData"); s != nullptr && !s->is_null()) {
    out.subscription_json = s->ToJson();
  }
  out.filter_data = v.Str("filterData");
  out.max_queue_index = v.Int("maxQueueIndex");
  out.min_queue_index = v.Int("minQueueIndex");
  if (const FjValue* l = v.Find("queueData"); l != nullptr && l->is_array()) {
    for (const auto& e : l->items) {
      ConsumeQueueEntry c;
      c.physic_offset = e.Int("physicOffset");
      c.physic_size = static_cast<int32_t>(e.Int("physicSize"));
      c.tags_code = e.Int("tagsCode");
      c.extend_data_json = e.Str("extendDataJson");
      c.bit_map = e.Str("bitMap");
      c.eval = e.Bool("eval");
      c.msg = e.Str("msg");
      out.entries.push_back(std::move(c));
    }
  }
  return out;
}

Result<ConsumeDirectlyResult> ConsumeDirectlyResult::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ConsumeMessageDirectlyResult"));
  ConsumeDirectlyResult out;
  out.order = v.Bool("order");
  out.auto_commit = v.Find("autoCommit") == nullptr || v.Bool("autoCommit");
  out.consume_result = v.Str("consumeResult");
  out.remark = v.Str("remark");
  out.spent_time_mills = v.Int("spentTimeMills");
  return out;
}

Result<ProducerTable> ProducerTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ProducerTableInfo"));
  ProducerTable out;
  if (const FjValue* d = v.Find("data"); d != nullptr && d->is_object()) {
    for (const auto& [group, list] : d->members) {
      auto& infos = out.groups[group.text];
      for (const auto& p : list.items) {
        infos.push_back({p.Str("clientId"), p.Str("remoteIP"), p.Str("language"),
                         static_cast<int32_t>(p.Int("version")), p.Int("lastUpdateTimestamp")});
      }
    }
  }
  return out;
}

Result<DataVersionValue> DataVersionValue::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "DataVersion"));
  if (v.Find("counter") == nullptr || v.Find("timestamp") == nullptr) {
    return Corruption("DataVersion: counter or timestamp missing");
  }
  return DataVersionValue{v.Int("counter"), v.Int("timestamp")};
}

std::string DataVersionValue::Encode() const {
  return fmt::format("{{\"counter\":{},\"timestamp\":{}}}", counter, timestamp);
}

}  // namespace rocketstore::client
