// File: broker/service/route_registration.h
//
// How a service whose change the routes must show (a topic created, altered or deleted,
// the broker's permission changed) asks for a registration round with the name servers,
// and answers its caller only once that round has ended — as RocketMQ 4.9.8's
// AdminBrokerProcessor answers after registerIncrementBrokerData / registerBrokerAll,
// which wait for every name server (or the registration timeout). A client that looks
// the route up right after the answer then finds it.
//
// The broker wires RequestRegistration to NamesrvRegistrar::RequestNow
// (broker/namesrv_registrar.h): `done` runs on the registrar's thread when the first
// round that starts after the request has ended, with OK when at least one name server
// accepted. Nothing blocks an io thread: the request is answered from `done`.
//
// Thread-safety: values; RequestRegistration from any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/status.h"
#include "broker/service/outcome.h"

namespace rocketstore::broker {

using RegistrationDone = std::function<void(const Status& registered)>;
// `done` may be empty (nobody waits).
using RequestRegistration = std::function<void(RegistrationDone done)>;
// A deferred answer: the verdict for a request answered after the round.
using AnswerLater = std::function<void(Verdict)>;

// The answer to a change that was applied: its own verdict when that is an error;
// otherwise SUCCESS, as Java (whose registration failures are only logged), with a remark
// saying why the routes may not show it yet when no name server accepted.
inline Verdict AfterRegistration(Verdict change, const Status& registered) {
  if (!change.ok() || registered.ok()) return change;
  return Verdict{Outcome::kOk, "applied, but no name server accepted the registration (" +
                                   registered.ToString() +
                                   "); routes show the change after the next registration round"};
}

// Requests a round and answers `verdict` through `later` once it has ended (nullopt), or
// returns `verdict` at once when there is nobody to wait for: no `later`, or no name
// servers (`register_routes` empty). With no `later` the round is still requested.
inline std::optional<Verdict> AnswerAfterRound(const RequestRegistration& register_routes,
                                               Verdict verdict, AnswerLater later) {
  if (!register_routes) return verdict;
  if (!later) {
    register_routes(nullptr);
    return verdict;
  }
  register_routes([verdict = std::move(verdict), later = std::move(later)](const Status& s) {
    later(AfterRegistration(verdict, s));
  });
  return std::nullopt;
}

}  // namespace rocketstore::broker
