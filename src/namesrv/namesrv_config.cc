#include "namesrv/namesrv_config.h"

#include "io/atomic_file.h"

namespace rocketstore::namesrv {
namespace {

constexpr char kBlackList[] = "configBlackList;configStorePath;kvConfigPath";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

Result<bool> ParseBool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return InvalidArgument(key + "=" + value + " is not a boolean: use true or false");
}

}  // namespace

std::map<std::string, std::string> ParsePropertiesText(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    size_t sep = line.find_first_of("=:");
    std::string_view key = Trim(line.substr(0, sep));
    std::string_view value = sep == std::string_view::npos ? "" : Trim(line.substr(sep + 1));
    if (!key.empty()) out[std::string(key)] = std::string(value);
  }
  return out;
}

Status NamesrvRuntimeConfig::Apply(const std::map<std::string, std::string>& kv, Values& v) {
  for (const auto& [key, value] : kv) {
    if (key == "orderMessageEnable") {
      auto b = ParseBool(key, value);
      if (!b.ok()) return b.status();
      v.order_message_enable = *b;
    } else if (key == "clusterTest") {
      auto b = ParseBool(key, value);
      if (!b.ok()) return b.status();
      v.cluster_test = *b;
    } else if (key == "productEnvName") {
      if (value.empty()) return InvalidArgument("productEnvName must not be empty");
      v.product_env_name = value;
    } else {
      return FailedPrecondition(
          "Can not update config key " + key +
          ": only orderMessageEnable, clusterTest and productEnvName can be changed at run time "
          "(paths and the black list " +
          kBlackList + " never)");
    }
  }
  return Status::OK();
}

std::string NamesrvRuntimeConfig::UpdatableText(const Values& v) {
  return std::string("clusterTest=") + (v.cluster_test ? "true" : "false") +
         "\norderMessageEnable=" + (v.order_message_enable ? "true" : "false") +
         "\nproductEnvName=" + v.product_env_name + "\n";
}

Status NamesrvRuntimeConfig::Load() {
  if (fs_ == nullptr || config_store_path_.empty()) return Status::OK();
  auto file = ReadFileOrBackup(*fs_, config_store_path_);
  if (!file.ok()) {
    if (file.status().code() == StatusCode::kNotFound) return Status::OK();
    return file.status().WithContext("cannot read " + config_store_path_);
  }
  std::lock_guard lock(mu_);
  Values next = values_;
  if (Status s = Apply(ParsePropertiesText(file->content), next); !s.ok()) {
    return s.WithContext("in " + config_store_path_);
  }
  values_ = next;
  return Status::OK();
}

void NamesrvRuntimeConfig::set_listen_port(int port) {
  std::lock_guard lock(mu_);
  listen_port_ = port;
}

bool NamesrvRuntimeConfig::order_message_enable() const {
  std::lock_guard lock(mu_);
  return values_.order_message_enable;
}

std::string NamesrvRuntimeConfig::PropertiesText() const {
  std::lock_guard lock(mu_);
  return std::string("configBlackList=") + kBlackList + "\nkvConfigPath=" + kv_config_path_ +
         "\nconfigStorePath=" + config_store_path_ + "\n" + UpdatableText(values_) +
         "listenPort=" + std::to_string(listen_port_) + "\n";
}

Status NamesrvRuntimeConfig::Update(std::string_view properties_text) {
  std::lock_guard lock(mu_);
  Values next = values_;
  RS_RETURN_IF_ERROR(Apply(ParsePropertiesText(properties_text), next));
  if (fs_ != nullptr && !config_store_path_.empty()) {
    if (Status s = fs_->CreateDirs(ParentDir(config_store_path_)); !s.ok()) {
      return s.WithContext("cannot create the directory of " + config_store_path_);
    }
    if (Status s = WriteFileAtomically(*fs_, config_store_path_, UpdatableText(next)); !s.ok()) {
      return s.WithContext("cannot write " + config_store_path_);
    }
  }
  values_ = next;
  return Status::OK();
}

}  // namespace rocketstore::namesrv
