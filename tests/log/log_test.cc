#include "log/log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore::log {
namespace {

using ::rocketstore::testing::StatusIs;

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

LogOptions FileOnly(const std::string& file, Level level = Level::kDebug) {
  LogOptions o;
  o.level = level;
  o.file = file;
  o.also_stderr = false;
  return o;
}

class LogTest : public ::testing::Test {
 protected:
  // Each test installs its own logger; leave the process on stderr for the next one.
  void TearDown() override { ASSERT_OK(InitLogging(LogOptions{})); }
  testing::TempDir dir_;
};

// First in the file: with no InitLogging yet, events go to stderr at info and above.
TEST(LogDefaultsTest, WithoutInitLoggingInfoGoesToStderr) {
  ::testing::internal::CaptureStderr();
  RS_LOG_DEBUG("test: hidden value={}", 1);
  RS_LOG_INFO("test: shown value={}", 2);
  FlushLogs();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("hidden"), std::string::npos) << err;
  EXPECT_NE(err.find("info"), std::string::npos) << err;
  EXPECT_NE(err.find("test: shown value=2"), std::string::npos) << err;
}

TEST(ParseLogLevelTest, UnknownNameIsAnError) {
  EXPECT_THAT(ParseLogLevel("verbose"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseLogLevel(""), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseLogLevel("info "), StatusIs(StatusCode::kInvalidArgument));
}

TEST(ParseLogLevelTest, EveryNameRoundTripsCaseInsensitively) {
  for (Level l :
       {Level::kTrace, Level::kDebug, Level::kInfo, Level::kWarn, Level::kError, Level::kOff}) {
    ASSERT_OK_AND_ASSIGN(Level parsed, ParseLogLevel(LevelName(l)));
    EXPECT_EQ(parsed, l) << LevelName(l);
  }
  ASSERT_OK_AND_ASSIGN(Level warning, ParseLogLevel("WARNING"));
  EXPECT_EQ(warning, Level::kWarn);
  ASSERT_OK_AND_ASSIGN(Level error, ParseLogLevel("Error"));
  EXPECT_EQ(error, Level::kError);
}

TEST_F(LogTest, UnwritablePathIsAnErrorAndKeepsThePreviousLogger) {
  const std::string good = dir_.path() + "/good.log";
  ASSERT_OK(InitLogging(FileOnly(good)));
  // A regular file where a directory should be: neither root nor anyone can create it.
  std::ofstream(dir_.path() + "/not_a_dir") << "x";
  Status s = InitLogging(FileOnly(dir_.path() + "/not_a_dir/broker.log"));
  EXPECT_THAT(s, StatusIs(StatusCode::kIOError));
  EXPECT_NE(s.message().find("not_a_dir/broker.log"), std::string::npos) << s;
  RS_LOG_INFO("test: still here");
  const auto lines = ReadLines(good);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("test: still here"), std::string::npos);
}

TEST_F(LogTest, NonsensicalOptionsAreInvalidArguments) {
  LogOptions none;
  none.also_stderr = false;
  EXPECT_THAT(InitLogging(none), StatusIs(StatusCode::kInvalidArgument));
  LogOptions zero = FileOnly(dir_.path() + "/a.log");
  zero.max_file_bytes = 0;
  EXPECT_THAT(InitLogging(zero), StatusIs(StatusCode::kInvalidArgument));
  LogOptions negative = FileOnly(dir_.path() + "/a.log");
  negative.max_files = -1;
  EXPECT_THAT(InitLogging(negative), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/a.log"));
}

TEST_F(LogTest, FileGetsOneLinePerEventWithLevelAndSource) {
  const std::string file = dir_.path() + "/sub/dir/broker.log";  // parents are created
  ASSERT_OK(InitLogging(FileOnly(file, Level::kDebug)));
  RS_LOG_TRACE("test: below the level");
  RS_LOG_DEBUG("test: event=debug n={}", 1);
  RS_LOG_INFO("test: event=info name={}", "a b");
  RS_LOG_WARN("test: event=warn");
  RS_LOG_ERROR("test: event=error code={}", 17);
  const auto lines = ReadLines(file);  // no flush: every line is flushed as written
  ASSERT_EQ(lines.size(), 4u);
  const char* levels[] = {" debug ", " info ", " warning ", " error "};
  const char* messages[] = {"test: event=debug n=1", "test: event=info name=a b",
                            "test: event=warn", "test: event=error code=17"};
  for (size_t i = 0; i < lines.size(); i++) {
    EXPECT_NE(lines[i].find(levels[i]), std::string::npos) << lines[i];
    EXPECT_NE(lines[i].find("log_test.cc:"), std::string::npos) << lines[i];
    EXPECT_TRUE(lines[i].ends_with(messages[i])) << lines[i];
  }
}

TEST_F(LogTest, DisabledLevelsDoNotEvaluateTheirArguments) {
  const std::string file = dir_.path() + "/warn.log";
  ASSERT_OK(InitLogging(FileOnly(file, Level::kWarn)));
  int evaluated = 0;
  auto count = [&evaluated] { return ++evaluated; };
  RS_LOG_INFO("test: n={}", count());
  RS_LOG_WARN("test: n={}", count());
  EXPECT_EQ(evaluated, 1);
  const auto lines = ReadLines(file);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].ends_with("test: n=1")) << lines[0];
}

TEST_F(LogTest, LevelOffWritesNothing) {
  const std::string file = dir_.path() + "/off.log";
  ASSERT_OK(InitLogging(FileOnly(file, Level::kOff)));
  RS_LOG_ERROR("test: not even errors");
  EXPECT_TRUE(ReadLines(file).empty());
}

TEST_F(LogTest, RotatesAtTheSizeAndKeepsMaxFiles) {
  const std::string file = dir_.path() + "/r.log";
  LogOptions o = FileOnly(file, Level::kInfo);
  o.max_file_bytes = 1024;
  o.max_files = 2;
  ASSERT_OK(InitLogging(o));
  const std::string pad(60, 'x');
  for (int i = 0; i < 100; i++) RS_LOG_INFO("test: line={} pad={}", i, pad);
  namespace fs = std::filesystem;
  ASSERT_TRUE(fs::exists(dir_.path() + "/r.1.log"));
  ASSERT_TRUE(fs::exists(dir_.path() + "/r.2.log"));
  EXPECT_FALSE(fs::exists(dir_.path() + "/r.3.log"));
  for (const char* name : {"/r.log", "/r.1.log", "/r.2.log"}) {
    EXPECT_LE(fs::file_size(dir_.path() + name), 1024u) << name;
  }
  // The newest lines are in r.log, the ones just before in r.1.log, without a gap.
  const auto current = ReadLines(file);
  const auto previous = ReadLines(dir_.path() + "/r.1.log");
  ASSERT_FALSE(current.empty());
  ASSERT_FALSE(previous.empty());
  EXPECT_NE(current.back().find("line=99 "), std::string::npos) << current.back();
  const std::string first_current = current.front();
  const size_t at = first_current.find("line=") + 5;
  const int n = std::stoi(first_current.substr(at));
  EXPECT_NE(previous.back().find("line=" + std::to_string(n - 1) + " "), std::string::npos)
      << previous.back();
}

TEST_F(LogTest, AlsoStderrWritesBoth) {
  const std::string file = dir_.path() + "/both.log";
  LogOptions o = FileOnly(file, Level::kInfo);
  o.also_stderr = true;
  ASSERT_OK(InitLogging(o));
  ::testing::internal::CaptureStderr();
  RS_LOG_INFO("test: to both");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("test: to both"), std::string::npos) << err;
  ASSERT_EQ(ReadLines(file).size(), 1u);
}

}  // namespace
}  // namespace rocketstore::log
