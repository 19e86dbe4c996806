#include "client/unique_id.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <ctime>
#include <random>

namespace rocketstore::client {

namespace {
void Hex(const uint8_t* p, size_t n, std::string* out) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; ++i) {
    out->push_back(kDigits[p[i] >> 4]);
    out->push_back(kDigits[p[i] & 15]);
  }
}
}  // namespace

std::array<uint8_t, 4> LocalClientIpBytes() {
  std::array<uint8_t, 4> chosen{127, 0, 0, 1};
  std::array<uint8_t, 4> private_192{};
  bool have_192 = false;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return chosen;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    const uint32_t v = ntohl(sin->sin_addr.s_addr);
    const std::array<uint8_t, 4> ip{static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
                                    static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
    if (ip[0] == 127) continue;
    if (ip[0] == 192 && ip[1] == 168) {
      private_192 = ip;  // Java keeps the last one
      have_192 = true;
      continue;
    }
    freeifaddrs(list);
    return ip;
  }
  freeifaddrs(list);
  return have_192 ? private_192 : chosen;
}

std::string LocalClientIp() {
  const auto ip = LocalClientIpBytes();
  return std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." + std::to_string(ip[2]) + "." +
         std::to_string(ip[3]);
}

std::string BuildClientId(const std::string& instance_name) {
  static std::atomic<int> counter{0};
  const std::string instance =
      instance_name.empty() ? std::to_string(getpid()) + "#" + std::to_string(counter.fetch_add(1))
                            : instance_name;
  return LocalClientIp() + "@" + instance;
}

UniqueIdGenerator::UniqueIdGenerator(Clock& clock) : clock_(clock) {
  const auto ip = LocalClientIpBytes();
  const uint16_t pid = static_cast<uint16_t>(getpid());
  std::random_device rd;
  const uint32_t stamp = rd();
  fixed_ = {ip[0],
            ip[1],
            ip[2],
            ip[3],
            static_cast<uint8_t>(pid >> 8),
            static_cast<uint8_t>(pid),
            static_cast<uint8_t>(stamp >> 24),
            static_cast<uint8_t>(stamp >> 16),
            static_cast<uint8_t>(stamp >> 8),
            static_cast<uint8_t>(stamp)};
}

int64_t UniqueIdGenerator::MonthStartMillis(int64_t now_ms) {
  const time_t secs = static_cast<time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  tm.tm_mday = 1;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

std::string UniqueIdGenerator::Next() {
  const int64_t now = clock_.NowMillis();
  const uint32_t since = static_cast<uint32_t>(now - MonthStartMillis(now));
  const uint16_t n = static_cast<uint16_t>(counter_.fetch_add(1, std::memory_order_relaxed));
  const uint8_t tail[6] = {static_cast<uint8_t>(since >> 24), static_cast<uint8_t>(since >> 16),
                           static_cast<uint8_t>(since >> 8),  static_cast<uint8_t>(since),
                           static_cast<uint8_t>(n >> 8),      static_cast<uint8_t>(n)};
  std::string out;
  out.reserve(32);
  Hex(fixed_.data(), fixed_.size(), &out);
  Hex(tail, sizeof tail, &out);
  return out;
}

}  // namespace rocketstore::client
