#include "base/uninit_array.h"

#include <gtest/gtest.h>

#include <string_view>

namespace rocketstore {
namespace {

struct Entry {  // as format::PropertyEntry
  std::string_view first, second;
  bool operator==(const Entry&) const = default;
};

TEST(UninitArrayTest, HoldsWhatIsAssignedAndCopiesIt) {
  static_assert(UninitArray<Entry, 16>::size() == 16);
  UninitArray<Entry, 16> a;
  for (size_t i = 0; i < a.size(); ++i) a[i] = {"name", i % 2 ? "odd" : "even"};
  EXPECT_EQ(a[0].second, "even");
  EXPECT_EQ(a[15].second, "odd");
  EXPECT_EQ(a.end() - a.begin(), 16);
  EXPECT_EQ(a.data(), &a[0]);
  const UninitArray<Entry, 16> copy = a;
  for (size_t i = 0; i < copy.size(); ++i) EXPECT_EQ(copy[i], a[i]) << i;
  // The first few set, as the send path uses it: only those are read.
  UninitArray<int, 8> few;
  few[0] = 7;
  few[1] = 9;
  EXPECT_EQ(few[0] + few[1], 16);
}

}  // namespace
}  // namespace rocketstore
