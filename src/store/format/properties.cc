#include "store/format/properties.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "base/java_hash.h"

namespace rocketstore::format {
namespace {

constexpr int kMaximumCapacity = 1 << 30;  // HashMap.MAXIMUM_CAPACITY
constexpr int kTreeifyThreshold = 8;       // HashMap.TREEIFY_THRESHOLD
constexpr int kMinTreeifyCapacity = 64;    // HashMap.MIN_TREEIFY_CAPACITY

// HashMap.tableSizeFor: the smallest power of two >= c (1 for c <= 1).
int TableSizeFor(int c) {
  if (c <= 1) return 1;
  if (c >= kMaximumCapacity) return kMaximumCapacity;
  int n = 1;
  while (n < c) n <<= 1;
  return n;
}

// Whether two property names are equal: the names a send carries are short (KEYS, TAGS,
// WAIT: 4 bytes; UNIQ_KEY: 8), and those compare in one or two loads instead of a call
// to memcmp (the dispatcher and the send path compare names on every message).
inline bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const size_t n = a.size();
  if (n >= 4 && n <= 8) {
    // Two 4-byte loads per name, overlapping when n < 8: every byte is covered.
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 4);
    std::memcpy(&b0, b.data(), 4);
    std::memcpy(&a1, a.data() + n - 4, 4);
    std::memcpy(&b1, b.data() + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  return n == 0 || std::memcmp(a.data(), b.data(), n) == 0;
}

uint32_t SpreadHash(std::string_view name) {
  const auto h = static_cast<uint32_t>(JavaStringHash(name));
  return h ^ (h >> 16);
}

// Calls f(name, value) for every readable entry of `props`, in order (the rules of
// string2messageProperties): the text is cut at each 0x02; a piece of at least 3 bytes
// whose first 0x01 is neither its first nor its last byte is an entry, named by what is
// before that 0x01. One pass over the bytes, 16 at a time where SSE2 is there: only the
// separators are visited.
template <typename F>
void ForEachEntry(std::string_view props, F&& f) {
  constexpr size_t kNone = std::string_view::npos;
  const char* const data = props.data();
  const size_t len = props.size();
  size_t start = 0;   // of the current piece
  size_t kv = kNone;  // its first 0x01
  auto end_piece = [&](size_t end) {
    if (end - start >= 3 && kv != kNone && kv > start && kv < end - 1) {
      f(std::string_view(data + start, kv - start), std::string_view(data + kv + 1, end - kv - 1));
    }
    start = end + 1;
    kv = kNone;
  };
  auto separator = [&](size_t i) {
    if (data[i] == kPropertySeparator) {
      end_piece(i);
    } else if (kv == kNone) {
      kv = i;
    }
  };
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i name_value = _mm_set1_epi8(kNameValueSeparator);
  const __m128i entries = _mm_set1_epi8(kPropertySeparator);
  for (; i + 16 <= len; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    auto hits = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(bytes, name_value), _mm_cmpeq_epi8(bytes, entries))));
    while (hits != 0) {
      separator(i + static_cast<size_t>(std::countr_zero(hits)));
      hits &= hits - 1;
    }
  }
#endif
  for (; i < len; ++i) {
    if (data[i] == kPropertySeparator || data[i] == kNameValueSeparator) separator(i);
  }
  if (start < len) end_piece(len);
}

}  // namespace

// ---- PropertiesBuilder ----------------------------------------------------------------------

PropertiesBuilder::PropertiesBuilder(PropertiesFormat format)
    : format_(format), threshold_(TableSizeFor(format.initial_capacity)) {}

PropertiesBuilder PropertiesBuilder::FromString(std::string_view props, PropertiesFormat format) {
  PropertiesBuilder b(format);
  ForEachEntry(props, [&b](std::string_view name, std::string_view value) { b.Put(name, value); });
  return b;
}

int PropertiesBuilder::BucketOf(std::string_view name, int capacity) {
  return static_cast<int>(SpreadHash(name) & static_cast<uint32_t>(capacity - 1));
}

// HashMap.resize(): the capacity/threshold arithmetic, then every chain is split in order
// into the same bucket and bucket + old capacity.
void PropertiesBuilder::Resize() {
  const int old_cap = capacity_;
  const int old_thr = threshold_;
  int new_cap = 0;
  int new_thr = 0;
  if (old_cap > 0) {
    if (old_cap >= kMaximumCapacity) {
      threshold_ = INT_MAX;
      return;
    }
    new_cap = old_cap << 1;
    if (new_cap < kMaximumCapacity && old_cap >= 16) new_thr = old_thr << 1;
  } else if (old_thr > 0) {
    new_cap = old_thr;  // the initial capacity was parked in threshold
  } else {
    new_cap = 16;
    new_thr = 12;
  }
  if (new_thr == 0) {
    const float ft = static_cast<float>(new_cap) * 0.75f;
    new_thr = (new_cap < kMaximumCapacity && ft < static_cast<float>(kMaximumCapacity))
                  ? static_cast<int>(ft)
                  : INT_MAX;
  }
  std::vector<int32_t> heads(static_cast<size_t>(new_cap), -1);
  std::vector<int32_t> tails(static_cast<size_t>(new_cap), -1);
  const uint32_t mask = static_cast<uint32_t>(new_cap - 1);
  for (int32_t head : heads_) {
    for (int32_t i = head; i >= 0;) {
      Entry& e = entries_[static_cast<size_t>(i)];
      const int32_t next = e.next;
      const size_t b = e.spread_hash & mask;
      e.next = -1;
      if (tails[b] < 0) {
        heads[b] = i;
      } else {
        entries_[static_cast<size_t>(tails[b])].next = i;
      }
      tails[b] = i;
      i = next;
    }
  }
  heads_ = std::move(heads);
  capacity_ = new_cap;
  threshold_ = new_thr;
}

int32_t PropertiesBuilder::Find(std::string_view name, uint32_t spread_hash) const {
  if (capacity_ == 0) return -1;
  const size_t b = spread_hash & static_cast<uint32_t>(capacity_ - 1);
  for (int32_t i = heads_[b]; i >= 0; i = entries_[static_cast<size_t>(i)].next) {
    const Entry& e = entries_[static_cast<size_t>(i)];
    if (e.spread_hash == spread_hash && e.name == name) return i;
  }
  return -1;
}

void PropertiesBuilder::Put(std::string_view name, std::string_view value) {
  if (capacity_ == 0) Resize();
  const uint32_t spread = SpreadHash(name);
  if (const int32_t found = Find(name, spread); found >= 0) {
    entries_[static_cast<size_t>(found)].value.assign(value);  // keeps its position
    return;
  }
  const size_t b = spread & static_cast<uint32_t>(capacity_ - 1);
  const auto index = static_cast<int32_t>(entries_.size());
  entries_.push_back(Entry{std::string(name), std::string(value), spread, -1, true});
  int chain = 0;  // nodes already in the bucket
  if (heads_[b] < 0) {
    heads_[b] = index;
  } else {
    int32_t tail = heads_[b];
    for (;;) {
      ++chain;
      const int32_t next = entries_[static_cast<size_t>(tail)].next;
      if (next < 0) break;
      tail = next;
    }
    entries_[static_cast<size_t>(tail)].next = index;
  }
  // putVal: a chain that already held TREEIFY_THRESHOLD nodes calls treeifyBin, which
  // only resizes while the table is small (treeification itself is not emulated).
  if (chain >= kTreeifyThreshold && capacity_ < kMinTreeifyCapacity) Resize();
  if (++live_ > static_cast<size_t>(threshold_)) Resize();
}

bool PropertiesBuilder::Remove(std::string_view name) {
  const uint32_t spread = SpreadHash(name);
  const int32_t found = Find(name, spread);
  if (found < 0) return false;
  const size_t b = spread & static_cast<uint32_t>(capacity_ - 1);
  Entry& e = entries_[static_cast<size_t>(found)];
  if (heads_[b] == found) {
    heads_[b] = e.next;
  } else {
    int32_t prev = heads_[b];
    while (entries_[static_cast<size_t>(prev)].next != found) {
      prev = entries_[static_cast<size_t>(prev)].next;
    }
    entries_[static_cast<size_t>(prev)].next = e.next;
  }
  e.live = false;
  e.next = -1;
  std::string().swap(e.name);
  std::string().swap(e.value);
  --live_;
  return true;
}

std::optional<std::string_view> PropertiesBuilder::Get(std::string_view name) const {
  const int32_t found = Find(name, SpreadHash(name));
  if (found < 0) return std::nullopt;
  return std::string_view(entries_[static_cast<size_t>(found)].value);
}

template <typename F>
void PropertiesBuilder::ForEachInOrder(F&& f) const {
  for (int32_t head : heads_) {
    for (int32_t i = head; i >= 0; i = entries_[static_cast<size_t>(i)].next) {
      f(entries_[static_cast<size_t>(i)]);
    }
  }
}

size_t PropertiesBuilder::EncodedSize() const {
  size_t n = 0;
  ForEachInOrder([&n](const Entry& e) { n += e.name.size() + e.value.size() + 2; });
  if (n > 0 && !format_.trailing_separator) --n;
  return n;
}

void PropertiesBuilder::AppendTo(std::string* out) const {
  if (live_ == 0) return;
  out->reserve(out->size() + EncodedSize());
  ForEachInOrder([out](const Entry& e) {
    out->append(e.name);
    out->push_back(kNameValueSeparator);
    out->append(e.value);
    out->push_back(kPropertySeparator);
  });
  if (!format_.trailing_separator) out->pop_back();
}

std::string PropertiesBuilder::Build() const {
  std::string out;
  AppendTo(&out);
  return out;
}

// ---- PropertyIndex --------------------------------------------------------------------------

void PropertyIndex::Parse(std::string_view props) {
  size_ = 0;
  mask_ = 0;
  heap_.clear();
  std::unordered_map<std::string_view, size_t> index;  // only past kInline entries
  ForEachEntry(props, [&](std::string_view name, std::string_view value) {
    if (heap_.empty()) {
      for (size_t i = 0; i < size_; ++i) {
        if (SameName(inline_[i].name, name)) {
          inline_[i].value = value;
          return;
        }
      }
      if (size_ < kInline) {
        Add(PropertyEntry{name, value});
        return;
      }
      mask_ = ~uint64_t{0};
      heap_.assign(inline_.begin(), inline_.end());
      for (size_t i = 0; i < heap_.size(); ++i) index.emplace(heap_[i].name, i);
    }
    auto [it, inserted] = index.emplace(name, heap_.size());
    if (inserted) {
      heap_.push_back(PropertyEntry{name, value});
      ++size_;
    } else {
      heap_[it->second].value = value;
    }
  });
}

void PropertyIndex::Assign(std::span<const PropertyEntry> entries) {
  size_ = 0;
  mask_ = 0;
  heap_.clear();
  for (const PropertyEntry& e : entries.first(std::min(entries.size(), kInline))) {
    if (!e.name.empty() && !e.value.empty()) Add(e);  // what Parse can read back
  }
}

std::optional<std::string_view> PropertyIndex::FindListed(std::string_view name) const {
  for (const PropertyEntry& e : entries()) {
    if (SameName(e.name, name)) return e.value;
  }
  return std::nullopt;
}

namespace {

constexpr size_t kMaxOrdered = PropertyIndex::kInline;

// The order a HashMap of `format` iterates `entries` in (see AppendInHashMapOrder): the
// entries' positions, written to `order`. False for a bucket that would treeify early.
bool HashMapOrder(std::span<const PropertyEntry> entries, size_t peak, PropertiesFormat format,
                  std::array<uint8_t, kMaxOrdered>* order) {
  // The capacity after `peak` puts: the initial table, doubled whenever the size passes
  // 0.75 of it (HashMap.resize; the first table is allocated at the first put).
  const uint32_t first = static_cast<uint32_t>(TableSizeFor(format.initial_capacity));
  uint64_t capacity = first;
  while (static_cast<double>(peak) > 0.75 * static_cast<double>(capacity)) capacity <<= 1;
  const uint32_t mask = static_cast<uint32_t>(capacity - 1);
  std::array<uint32_t, kMaxOrdered> spread;
  for (size_t i = 0; i < entries.size(); ++i) {
    spread[i] = SpreadHash(entries[i].name);
    // A bucket that would receive a 9th name while the table is below 64 makes HashMap
    // resize early (treeifyBin). Every bucket of a larger table is part of one of the
    // first table's, so no first-table bucket of 9 names rules that out.
    if (first < 64) {
      size_t same = 1;
      for (size_t j = 0; j < i; ++j) same += ((spread[j] ^ spread[i]) & (first - 1)) == 0;
      if (same > static_cast<size_t>(kTreeifyThreshold)) return false;
    }
  }
  // Bucket by bucket, each in insertion order: a stable selection over the few entries.
  uint32_t next = 0;
  size_t placed = 0;
  while (placed < entries.size()) {
    uint32_t lowest = UINT32_MAX;
    for (size_t i = 0; i < entries.size(); ++i) {
      const uint32_t b = spread[i] & mask;
      if (b == next) {
        (*order)[placed++] = static_cast<uint8_t>(i);
      } else if (b > next && b < lowest) {
        lowest = b;
      }
    }
    next = lowest;
  }
  return true;
}

// The last order computed on this thread and what it depends on: the names in order, the
// peak and the format. Producers send the same names message after message, so most sends
// reuse it instead of hashing every name again.
struct OrderMemo {
  std::string names;  // the names' bytes, one after another
  std::array<uint8_t, kMaxOrdered> name_sizes{};
  size_t count = 0;
  size_t peak = 0;
  PropertiesFormat format;
  std::array<uint8_t, kMaxOrdered> order{};
  bool valid = false;

  bool Matches(std::span<const PropertyEntry> entries, size_t p, PropertiesFormat f) const {
    if (!valid || entries.size() != count || p != peak ||
        f.initial_capacity != format.initial_capacity) {
      return false;
    }
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
      const std::string_view n = entries[i].name;
      // The sizes matched so far, so `names` holds n.size() bytes at `at`.
      if (n.size() != name_sizes[i]) return false;
      if (!n.empty() && std::memcmp(names.data() + at, n.data(), n.size()) != 0) return false;
      at += n.size();
    }
    return true;
  }
  void Remember(std::span<const PropertyEntry> entries, size_t p, PropertiesFormat f,
                const std::array<uint8_t, kMaxOrdered>& o) {
    valid = false;
    names.clear();
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].name.size() > UINT8_MAX) return;  // not remembered
      name_sizes[i] = static_cast<uint8_t>(entries[i].name.size());
      names.append(entries[i].name);
    }
    count = entries.size();
    peak = p;
    format = f;
    order = o;
    valid = names.size() <= 1024;  // a memo, not a store of hostile names
    if (!valid) names.clear();
  }
};

}  // namespace

bool AppendInHashMapOrder(std::span<const PropertyEntry> entries, size_t peak,
                          PropertiesFormat format, std::string* out,
                          std::span<PropertyEntry> written_entries) {
  if (entries.empty()) return true;
  if (entries.size() > kMaxOrdered) return false;  // not worth a shortcut
  thread_local OrderMemo memo;
  std::array<uint8_t, kMaxOrdered> order;
  if (memo.Matches(entries, peak, format)) {
    order = memo.order;
  } else {
    if (!HashMapOrder(entries, peak, format, &order)) return false;
    memo.Remember(entries, peak, format, order);
  }
  size_t bytes = 0;
  for (const PropertyEntry& e : entries) bytes += e.name.size() + e.value.size() + 2;
  // Written in place: sized once (with the last separator, dropped at the end if the
  // format has none), then filled by position.
  const size_t at = out->size();
  out->resize(at + bytes);
  char* w = out->data() + at;
  for (size_t k = 0; k < entries.size(); ++k) {
    const PropertyEntry& e = entries[order[k]];
    if (!e.name.empty()) std::memcpy(w, e.name.data(), e.name.size());
    const char* name = w;
    w += e.name.size();
    *w++ = kNameValueSeparator;
    if (!e.value.empty()) std::memcpy(w, e.value.data(), e.value.size());
    if (!written_entries.empty()) {
      written_entries[k] = {std::string_view(name, e.name.size()),
                            std::string_view(w, e.value.size())};
    }
    w += e.value.size();
    *w++ = kPropertySeparator;
  }
  if (!format.trailing_separator) out->pop_back();
  return true;
}

// ---- Free functions -------------------------------------------------------------------------

std::vector<std::pair<std::string_view, std::string_view>> ParseProperties(std::string_view props) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  // Small inputs (the normal case) dedupe by scanning; large ones through a hash index so
  // a hostile string of thousands of entries stays linear.
  constexpr size_t kScanLimit = 16;
  std::unordered_map<std::string_view, size_t> index;
  ForEachEntry(props, [&](std::string_view name, std::string_view value) {
    if (out.size() < kScanLimit) {
      for (auto& [n, v] : out) {
        if (n == name) {
          v = value;
          return;
        }
      }
      out.emplace_back(name, value);
      if (out.size() == kScanLimit) {
        for (size_t i = 0; i < out.size(); ++i) index.emplace(out[i].first, i);
      }
      return;
    }
    auto [it, inserted] = index.emplace(name, out.size());
    if (inserted) {
      out.emplace_back(name, value);
    } else {
      out[it->second].second = value;
    }
  });
  return out;
}

std::optional<std::string_view> FindProperty(std::string_view props, std::string_view name) {
  std::optional<std::string_view> found;
  ForEachEntry(props, [&](std::string_view n, std::string_view v) {
    if (n == name) found = v;
  });
  return found;
}

void FindProperties(std::string_view props, std::span<const std::string_view> names,
                    std::span<std::optional<std::string_view>> out) {
  for (auto& o : out) o.reset();
  ForEachEntry(props, [&](std::string_view n, std::string_view v) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (SameName(n, names[i])) out[i] = v;
    }
  });
}

std::string RemoveProperty(std::string_view props, std::string_view name) {
  if (!FindProperty(props, name).has_value()) return std::string(props);
  const bool trailing = props.back() == kPropertySeparator;  // props is non-empty here
  const std::string_view body = trailing ? props.substr(0, props.size() - 1) : props;
  std::string out;
  out.reserve(props.size());
  bool kept_any = false;
  size_t index = 0;
  while (index <= body.size()) {
    size_t end = body.find(kPropertySeparator, index);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view segment = body.substr(index, end - index);
    bool drop = false;
    ForEachEntry(segment, [&](std::string_view n, std::string_view) { drop = n == name; });
    if (!drop) {
      if (kept_any) out.push_back(kPropertySeparator);
      out.append(segment);
      kept_any = true;
    }
    index = end + 1;
  }
  if (trailing && !out.empty()) out.push_back(kPropertySeparator);
  return out;
}

std::vector<std::string_view> SplitKeys(std::string_view keys) {
  std::vector<std::string_view> out;
  std::string_view key;
  while (NextKey(keys, key)) out.push_back(key);
  return out;
}

}  // namespace rocketstore::format
