#include "log/log.h"
#include "namesrv/handlers.h"

namespace rocketstore::namesrv {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using Reply = std::optional<RemotingCommand>;
using Handler = std::function<Reply(RemotingCommand&)>;

namespace {

void On(net::RemotingServer& server, RequestCode code, Handler h) {
  server.RegisterHandler(ToInt(code), [h = std::move(h)](const net::ConnectionPtr&,
                                                         RemotingCommand& req) { return h(req); });
}

RemotingCommand WithBody(const RemotingCommand& req, const std::string& body) {
  RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
  resp.body.Assign(body);
  return resp;
}

std::string Field(const RemotingCommand& req, std::string_view name) {
  return std::string(req.FindField(name).value_or(""));
}

// TopicSysFlag.java: FLAG_UNIT = 1 << 0, FLAG_UNIT_SUB = 1 << 1.
bool HasUnit(int32_t f) { return (f & 1) != 0; }
bool HasUnitSub(int32_t f) { return (f & 2) != 0; }
bool UnitSubNotUnit(int32_t f) { return !HasUnit(f) && HasUnitSub(f); }

void RegisterTopicHandlers(net::RemotingServer& server, const NamesrvState& st) {
  On(server, RequestCode::kGetAllTopicListFromNameserver,
     [st](RemotingCommand& req) -> Reply { return WithBody(req, st.routes.AllTopics().ToJson()); });
  On(server, RequestCode::kGetTopicsByCluster, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"cluster"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    return WithBody(req, st.routes.TopicsByCluster(Field(req, "cluster")).ToJson());
  });
  On(server, RequestCode::kGetSystemTopicListFromNs, [st](RemotingCommand& req) -> Reply {
    return WithBody(req, st.routes.SystemTopics().ToJson());
  });
  On(server, RequestCode::kGetUnitTopicList, [st](RemotingCommand& req) -> Reply {
    return WithBody(req, st.routes.TopicsBySysFlag(&HasUnit).ToJson());
  });
  On(server, RequestCode::kGetHasUnitSubTopicList, [st](RemotingCommand& req) -> Reply {
    return WithBody(req, st.routes.TopicsBySysFlag(&HasUnitSub).ToJson());
  });
  On(server, RequestCode::kGetHasUnitSubUnunitTopicList, [st](RemotingCommand& req) -> Reply {
    return WithBody(req, st.routes.TopicsBySysFlag(&UnitSubNotUnit).ToJson());
  });
  On(server, RequestCode::kDeleteTopicInNamesrv, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"topic"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    st.routes.DeleteTopic(Field(req, "topic"), Field(req, "clusterName"));
    return protocol::MakeResponse(req, ResponseCode::kSuccess);
  });
  On(server, RequestCode::kWipeWritePermOfBroker, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"brokerName"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    const std::string name = Field(req, "brokerName");
    const int n = st.routes.WipeWritePerm(name);
    RS_LOG_INFO("namesrv: wiped write perm broker={} topics={}", name, n);
    RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
    resp.SetIntField("wipeTopicCount", n);
    return resp;
  });
  On(server, RequestCode::kAddWritePermOfBroker, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"brokerName"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    const std::string name = Field(req, "brokerName");
    const int n = st.routes.AddWritePerm(name);
    RS_LOG_INFO("namesrv: added write perm broker={} topics={}", name, n);
    RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
    resp.SetIntField("addTopicCount", n);
    return resp;
  });
}

void RegisterKvHandlers(net::RemotingServer& server, const NamesrvState& st) {
  On(server, RequestCode::kPutKvConfig, [st](RemotingCommand& req) -> Reply {
    if (!req.FindField("namespace") || !req.FindField("key")) {
      return protocol::MakeResponse(req, ResponseCode::kSystemError, "namespace or key is null");
    }
    if (Status s = req.RequireFields({"value"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    Status s = st.kv.Put(Field(req, "namespace"), Field(req, "key"), Field(req, "value"));
    if (!s.ok()) return protocol::MakeSystemErrorResponse(req, s);
    return protocol::MakeResponse(req, ResponseCode::kSuccess);
  });
  On(server, RequestCode::kGetKvConfig, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"namespace", "key"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    const std::string ns = Field(req, "namespace"), key = Field(req, "key");
    auto value = st.kv.Get(ns, key);
    if (!value) {
      return protocol::MakeResponse(req, ResponseCode::kQueryNotFound,
                                    "No config item, Namespace: " + ns + " Key: " + key);
    }
    RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
    resp.SetField("value", *value);
    return resp;
  });
  On(server, RequestCode::kDeleteKvConfig, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"namespace", "key"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    Status s = st.kv.Delete(Field(req, "namespace"), Field(req, "key"));
    if (!s.ok()) return protocol::MakeSystemErrorResponse(req, s);
    return protocol::MakeResponse(req, ResponseCode::kSuccess);
  });
  On(server, RequestCode::kGetKvlistByNamespace, [st](RemotingCommand& req) -> Reply {
    if (Status s = req.RequireFields({"namespace"}); !s.ok()) {
      return protocol::MakeSystemErrorResponse(req, s);
    }
    const std::string ns = Field(req, "namespace");
    auto json = st.kv.NamespaceJson(ns);
    if (!json) {
      return protocol::MakeResponse(req, ResponseCode::kQueryNotFound,
                                    "No config item, Namespace: " + ns);
    }
    return WithBody(req, *json);
  });
}

void RegisterConfigHandlers(net::RemotingServer& server, const NamesrvState& st) {
  On(server, RequestCode::kGetNamesrvConfig,
     [st](RemotingCommand& req) -> Reply { return WithBody(req, st.config.PropertiesText()); });
  On(server, RequestCode::kUpdateNamesrvConfig, [st](RemotingCommand& req) -> Reply {
    std::vector<uint8_t> body = req.body.Flatten();
    if (body.empty()) return protocol::MakeResponse(req, ResponseCode::kSuccess);
    Status s =
        st.config.Update(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
    if (s.code() == StatusCode::kFailedPrecondition) {
      return protocol::MakeResponse(req, ResponseCode::kNoPermission, s.message());
    }
    if (!s.ok()) return protocol::MakeSystemErrorResponse(req, s);
    RS_LOG_INFO("namesrv: config updated");
    return protocol::MakeResponse(req, ResponseCode::kSuccess);
  });
}

}  // namespace

void RegisterAdminHandlers(net::RemotingServer& server, const NamesrvState& st) {
  RegisterTopicHandlers(server, st);
  RegisterKvHandlers(server, st);
  RegisterConfigHandlers(server, st);
}

}  // namespace rocketstore::namesrv
