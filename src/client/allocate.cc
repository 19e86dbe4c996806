#include "client/allocate.h"

#include <algorithm>
#include <tuple>

namespace rocketstore::client {

bool QueueLess(const MessageQueue& a, const MessageQueue& b) {
  return std::tie(a.topic, a.broker_name, a.queue_id) <
         std::tie(b.topic, b.broker_name, b.queue_id);
}

std::vector<MessageQueue> AllocateAveragely(std::vector<MessageQueue> mqs,
                                            std::vector<std::string> cids,
                                            const std::string& consumer_id) {
  std::sort(mqs.begin(), mqs.end(), QueueLess);
  std::sort(cids.begin(), cids.end());
  std::vector<MessageQueue> out;
  auto it = std::find(cids.begin(), cids.end(), consumer_id);
  if (it == cids.end() || mqs.empty()) return out;
  const size_t index = static_cast<size_t>(it - cids.begin());
  const size_t n = mqs.size();
  const size_t c = cids.size();
  const size_t mod = n % c;
  const size_t average = n <= c ? 1 : (mod > 0 && index < mod ? n / c + 1 : n / c);
  const size_t start = (mod > 0 && index < mod) ? index * average : index * average + mod;
  if (start >= n) return out;  // Java: range = min(average, n - start) <= 0 → nothing
  const size_t range = std::min(average, n - start);
  for (size_t i = 0; i < range; ++i) out.push_back(mqs[(start + i) % n]);
  return out;
}

}  // namespace rocketstore::client
