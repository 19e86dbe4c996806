#include "broker/hooks/put_pipeline.h"

#include "base/uninit_array.h"

namespace rocketstore::broker {

DraftMessage::DraftMessage(const DraftMessage& other) { *this = other; }

DraftMessage& DraftMessage::operator=(const DraftMessage& other) {
  if (this == &other) return *this;
  queue_id = other.queue_id;
  flag = other.flag;
  sys_flag = other.sys_flag;
  born_timestamp = other.born_timestamp;
  born_host = other.born_host;
  reconsume_times = other.reconsume_times;
  prepared_transaction_offset = other.prepared_transaction_offset;
  wait_in_map = other.wait_in_map;
  topic_storage_ = other.topic_storage_;
  properties_storage_ = other.properties_storage_;
  const bool own_topic = other.topic_.data() == other.topic_storage_.data();
  const bool own_props = other.properties_.data() == other.properties_storage_.data();
  topic_ = own_topic ? std::string_view(topic_storage_) : other.topic_;
  properties_ = own_props ? std::string_view(properties_storage_) : other.properties_;
  body_ = other.body_;
  index_valid_ = false;  // the copy's views would point into `other`'s strings
  return *this;
}

bool DraftMessage::SetPropertiesInHashMapOrder(std::span<const format::PropertyEntry> entries,
                                               size_t peak) {
  UninitArray<format::PropertyEntry, format::PropertyIndex::kInline> room;
  if (entries.size() > room.size()) return false;
  const std::span<format::PropertyEntry> written(room.data(), entries.size());
  std::string out;
  if (!format::AppendInHashMapOrder(entries, peak, format::PropertiesFormat{}, &out, written)) {
    return false;
  }
  // Moving a short string copies its bytes: the index is re-pointed by offset.
  const char* const before = out.data();
  properties_storage_ = std::move(out);
  properties_ = properties_storage_;
  const char* const after = properties_storage_.data();
  for (format::PropertyEntry& e : written) {
    e.name = std::string_view(after + (e.name.data() - before), e.name.size());
    e.value = std::string_view(after + (e.value.data() - before), e.value.size());
  }
  index_.Assign(written);
  index_valid_ = true;
  return true;
}

format::PropertiesBuilder DraftMessage::PropertyMap() const {
  format::PropertiesBuilder map = format::PropertiesBuilder::FromString(properties_);
  if (wait_in_map) map.Put(format::kPropertyWait, *wait_in_map);
  return map;
}

format::MessageToStore DraftMessage::ToStore(const format::HostAddress& store_host) const {
  format::MessageToStore m;
  m.topic = topic_;
  m.queue_id = queue_id;
  m.flag = flag;
  m.body = body_;
  m.properties = properties_;
  m.sys_flag = sys_flag;
  m.born_timestamp = born_timestamp;
  m.born_host = born_host;
  m.store_host = store_host;
  m.reconsume_times = reconsume_times;
  m.prepared_transaction_offset = prepared_transaction_offset;
  return m;
}

Verdict PutPipeline::Run(const PutContext& context, std::span<DraftMessage> messages) const {
  for (const auto& hook : hooks_) {
    for (DraftMessage& m : messages) {
      Verdict v = hook->BeforePut(context, m);
      if (!v.ok()) return v;
    }
  }
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
