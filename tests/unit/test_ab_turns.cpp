// The ABBA turn loop shared by host and guest turns (results/ab_turns.hpp), driven by
// synthetic turns: the order of sides, which points a turn gets, the stop rule after each
// pair, a failed turn, a point that loses its value, a stop request.
#include <catch2/catch.hpp>

#include <string>

#include "results/ab_turns.hpp"

using namespace bpfbench;

namespace {

struct Trace {
  std::string sides;                   // "ABBA..."
  std::vector<std::vector<size_t>> live;  // the points each turn ran
};

AbTurnLoop loop_of(std::vector<AbPointReport> &reps, Trace &t, double b_value) {
  AbTurnLoop loop;
  loop.rule.precision_pct = 1.0;
  loop.rule.min_pairs = 3;
  loop.rule.max_pairs = 6;
  loop.stopped = [] { return false; };
  loop.run_turn = [&reps, &t, b_value](size_t, AbSide side, const std::vector<size_t> &live) {
    t.sides += side == AbSide::A ? 'A' : 'B';
    t.live.push_back(live);
    for (size_t i : live) reps[i].add_turn(side, side == AbSide::A ? 100.0 : b_value);
    return true;
  };
  return loop;
}

std::vector<AbPointReport *> pointers(std::vector<AbPointReport> &reps) {
  std::vector<AbPointReport *> p;
  for (auto &r : reps) p.push_back(&r);
  return p;
}

}  // namespace

TEST_CASE("ab turns: ABBA order, the stop rule after each pair, at most max_pairs", "[ab][ab-turns]") {
  std::vector<AbPointReport> reps(1);
  Trace t;
  AbTurnLoop loop = loop_of(reps, t, 50.0);  // every pair the same ratio: a zero-width CI
  REQUIRE(run_abba_turns(pointers(reps), loop));
  CHECK(t.sides == "ABBAAB");
  CHECK(reps[0].a.size() == 3);  // min_pairs, then the CI is inside the precision
  CHECK(reps[0].stop == AbStop::Reached);
  CHECK(reps[0].stats.ratio == Catch::Detail::Approx(0.5));
  CHECK(reps[0].note.empty());
}

TEST_CASE("ab turns: a point that loses its value leaves the next turns, the others go on", "[ab][ab-turns]") {
  std::vector<AbPointReport> reps(2);
  Trace t;
  AbTurnLoop loop = loop_of(reps, t, 50.0);
  auto inner = loop.run_turn;
  loop.run_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &live) {
    if (turn == 2) reps[1].note = "no hits in B";  // point 1 fails in the third turn
    return inner(turn, side, live);
  };
  REQUIRE(run_abba_turns(pointers(reps), loop));
  REQUIRE(t.live.size() == 6);
  CHECK(t.live[2] == std::vector<size_t>{0, 1});
  CHECK(t.live[3] == std::vector<size_t>{0});
  CHECK(reps[0].stop == AbStop::Reached);
  CHECK(reps[1].stop == AbStop::Continue);  // not judged after its note
  CHECK(reps[1].note == "no hits in B");
}

TEST_CASE("ab turns: a failed turn ends the loop and says so, max_pairs bounds a noisy point", "[ab][ab-turns]") {
  std::vector<AbPointReport> reps(1);
  Trace t;
  AbTurnLoop loop = loop_of(reps, t, 50.0);
  auto inner = loop.run_turn;
  loop.run_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &live) {
    return turn < 3 && inner(turn, side, live);
  };
  CHECK_FALSE(run_abba_turns(pointers(reps), loop));
  CHECK(t.sides == "ABB");

  std::vector<AbPointReport> noisy(1);
  Trace t2;
  AbTurnLoop loop2 = loop_of(noisy, t2, 0);
  loop2.run_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &) {
    noisy[0].add_turn(side, side == AbSide::A ? 100.0 : (turn % 4 == 1 ? 40.0 : 90.0));
    return true;
  };
  REQUIRE(run_abba_turns(pointers(noisy), loop2));
  CHECK(noisy[0].a.size() == 6);
  CHECK(noisy[0].stop == AbStop::MaxPairs);
}

TEST_CASE("ab turns: a stop request ends the loop, the live points are interrupted", "[ab][ab-turns]") {
  std::vector<AbPointReport> reps(2);
  Trace t;
  AbTurnLoop loop = loop_of(reps, t, 50.0);
  bool stop = false;
  loop.stopped = [&stop] { return stop; };
  auto inner = loop.run_turn;
  loop.run_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &live) {
    if (turn == 1) stop = true;  // SIGINT during the second turn
    return inner(turn, side, live);
  };
  REQUIRE(run_abba_turns(pointers(reps), loop));
  CHECK(t.sides == "AB");
  for (const auto &r : reps) {
    CHECK(r.note == "interrupted");
    CHECK(r.stop == AbStop::Continue);
  }
}
