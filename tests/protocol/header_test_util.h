// Test helpers shared by the typed-header tests (protocol/headers/).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "protocol/remoting_command.h"

namespace rocketstore::protocol::testing {

// Decodes `cmd` as H, failing the test (and returning a default H) on error.
template <typename H>
H MustDecode(const RemotingCommand& cmd) {
  Result<H> h = H::Decode(cmd);
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? *h : H{};
}

// EncodeTo into a fresh command with `code`, then Decode: the same struct comes back.
template <typename H, typename Encode>
void ExpectRoundTrip(const H& h, int32_t code, Encode encode) {
  RemotingCommand cmd = MakeRequest(code);
  encode(h, cmd);
  Result<H> back = H::Decode(cmd);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == h);
}
template <typename H>
void ExpectRoundTrip(const H& h, int32_t code = 0) {
  ExpectRoundTrip(h, code, [](const H& v, RemotingCommand& c) { v.EncodeTo(c); });
}

// Every field EncodeTo writes for `h` is in `original` with the same value, and every
// field of `original` except `ignored` is written: nothing lost, nothing invented.
template <typename H, typename Encode>
void ExpectSameFields(const H& h, const RemotingCommand& original, Encode encode,
                      std::initializer_list<std::string_view> ignored = {"ReqT"}) {
  RemotingCommand cmd = MakeRequest(original.code);
  encode(h, cmd);
  cmd.ForEachField([&](std::string_view name, std::string_view value) {
    EXPECT_EQ(original.FindField(name), value) << "field " << name;
    return true;
  });
  original.ForEachField([&](std::string_view name, std::string_view) {
    bool skip = false;
    for (std::string_view i : ignored) skip = skip || i == name;
    if (!skip) {
      EXPECT_TRUE(cmd.FindField(name).has_value()) << "not encoded: " << name;
    }
    return true;
  });
}

// `cmd` without the field `name` (wherever it is held): true if it had it.
inline bool EraseField(RemotingCommand& cmd, std::string_view name) {
  if (!cmd.FindField(name).has_value()) return false;
  RemotingCommand rest = cmd;
  rest.ext_fields.Clear();
  rest.send_v2 = SendV2Fields();
  rest.send_reply = SendReplyFields();
  cmd.ForEachField([&](std::string_view n, std::string_view v) {
    if (n != name) rest.ext_fields.Set(n, v);
    return true;
  });
  cmd = std::move(rest);
  return true;
}
template <typename H>
void ExpectSameFields(const H& h, const RemotingCommand& original) {
  ExpectSameFields(h, original, [](const H& v, RemotingCommand& c) { v.EncodeTo(c); });
}

// Removing any of `required` from `good` fails Decode with Java's "the custom field
// <name> is null"; setting any of `numbers` to a malformed value fails naming the field.
template <typename H>
void ExpectFieldErrors(const RemotingCommand& good,
                       std::initializer_list<std::string_view> required,
                       std::initializer_list<std::string_view> numbers) {
  ASSERT_TRUE(H::Decode(good).ok()) << H::Decode(good).status().ToString();
  for (std::string_view name : required) {
    RemotingCommand cmd = good;
    ASSERT_TRUE(EraseField(cmd, name)) << name << " is not in the good command";
    Result<H> h = H::Decode(cmd);
    ASSERT_FALSE(h.ok()) << "decoded without " << name;
    EXPECT_EQ(h.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(h.status().message(), "the custom field <" + std::string(name) + "> is null");
  }
  for (std::string_view name : numbers) {
    for (std::string_view bad : {"", "1x", "0x10", " 1", "1.5", "99999999999999999999"}) {
      RemotingCommand cmd = good;
      cmd.SetField(name, bad);
      Result<H> h = H::Decode(cmd);
      ASSERT_FALSE(h.ok()) << name << "=\"" << bad << "\" decoded";
      EXPECT_EQ(h.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(h.status().message().find("<" + std::string(name) + "> is not a valid"),
                std::string::npos)
          << h.status().message();
    }
  }
}

}  // namespace rocketstore::protocol::testing
