#pragma once
// What takes the place of a run's random draws when `locksim verify`
// enumerates runs: at every draw site the simulation asks the chooser, if one
// is set, for the value instead of sampling it. Without a chooser every draw
// is the seed's, exactly as before (the sites test a pointer, nothing more).
//
// A site says what it draws, whose draw it is and, for lengths that race a
// lease (work, the check-to-write gap, a fault's length), whose lease: the
// chooser may then offer the lengths just short of and just past what is
// left of that lease.

#include <cstdint>
#include <string_view>

#include "distribution.h"
#include "time.h"

namespace locksim::sim {

class Simulation;

// The DrawSite::what of a message's delay, whose subject is its link "from>to".
inline constexpr std::string_view kNetworkDelay = "network delay";

// A DrawSite's lease_of for a length that races whoever holds the lock.
inline constexpr std::string_view kLeaseOfHolder = "(the holder)";

struct DrawSite {
  std::string_view what;      // "workers.work", "network delay" …: a literal, which a chooser may keep
  std::string_view subject;   // whose draw: a node, a link "worker-1>redis", a fault "faults[0]"
  std::string_view lease_of;  // the node whose lease left is critical (or kLeaseOfHolder); empty: none
};

class Chooser {
 public:
  Chooser() = default;
  Chooser(const Chooser&) = delete;
  Chooser& operator=(const Chooser&) = delete;
  virtual ~Chooser() = default;

  // Called as the simulation is built, before anything runs: a chooser that
  // needs the time, or to follow the history, observes it from here.
  virtual void attach(Simulation& simulation) { (void)simulation; }

  // A length in place of distribution.sample(rng).
  virtual Duration choose_duration(const DrawSite& site, const Distribution& distribution) = 0;
  // An integer in [0, bound) in place of rng.below(bound); bound > 0.
  virtual std::uint64_t choose_below(const DrawSite& site, std::uint64_t bound) = 0;
  // In place of rng.chance(probability).
  virtual bool choose_chance(const DrawSite& site, double probability) = 0;
};

}  // namespace locksim::sim
