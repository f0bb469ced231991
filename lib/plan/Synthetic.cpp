//===- Synthetic.cpp - Network-shaped and random problems -----------------===//
#include "PlanInternal.h"

#include "wirc/plan/Synthetic.h"

namespace wirc::plan {

namespace {

using detail::Rng;

constexpr int64_t kAlignment = 64;
constexpr int64_t kBaseBytes = int64_t{1} << 20;

/// The activation size of a kernel at \p fraction of the forward pass: four
/// stages that halve, and a mix of outliers around them.
int64_t activationBytes(Rng &rng, double fraction) {
  int stage = std::min(3, static_cast<int>(fraction * 4));
  int64_t bytes = kBaseBytes >> stage;
  uint64_t pick = rng.below(100);
  if (pick < 15)
    bytes *= 4;
  else if (pick < 30)
    bytes /= 4;
  else if (pick < 35)
    bytes = 64 * static_cast<int64_t>(1 + rng.below(16));
  // Shapes vary a little around the stage's size.
  bytes += bytes / 8 * static_cast<int64_t>(rng.below(3));
  return bytes;
}

/// How long an activation produced at \p step stays live: until the next
/// kernel, or for a skip connection until 2 to 40 kernels later.
int64_t forwardEnd(Rng &rng, int64_t step) {
  if (rng.below(100) < 15)
    return step + 2 + static_cast<int64_t>(rng.below(39)) + 1;
  return step + 2;
}

} // namespace

Problem makeInferenceTrace(size_t numBuffers, uint64_t seed) {
  Rng rng(seed);
  Problem problem;
  problem.requests.reserve(numBuffers);
  // About one buffer in five is a kernel's scratch workspace.
  const double kernels = static_cast<double>(numBuffers) / 1.2;
  for (int64_t step = 0; problem.requests.size() < numBuffers; ++step) {
    double fraction = std::min(1.0, static_cast<double>(step) / kernels);
    problem.requests.push_back(
        {activationBytes(rng, fraction), step, forwardEnd(rng, step), kAlignment});
    if (problem.requests.size() < numBuffers && rng.below(5) == 0)
      problem.requests.push_back(
          {64 * static_cast<int64_t>(1 + rng.below(4096)), step, step + 1, kAlignment});
  }
  return problem;
}

Problem makeTrainingTrace(size_t numBuffers, uint64_t seed) {
  Rng rng(seed);
  Problem problem;
  problem.requests.reserve(numBuffers);
  // Each forward step creates an activation; the mirrored backward step
  // creates its gradient. A few steps also create a workspace.
  const int64_t forwardSteps = std::max<int64_t>(1, static_cast<int64_t>(numBuffers) * 10 / 22);
  const int64_t lastStep = 2 * forwardSteps; // backward steps are [F, 2F)
  std::vector<int64_t> bytes(forwardSteps);
  for (int64_t step = 0; step < forwardSteps && problem.requests.size() < numBuffers; ++step) {
    double fraction = static_cast<double>(step) / static_cast<double>(forwardSteps);
    bytes[step] = activationBytes(rng, fraction);
    // Most activations are saved for the backward pass.
    int64_t end = rng.below(100) < 60 ? lastStep - step : forwardEnd(rng, step);
    problem.requests.push_back({bytes[step], step, end, kAlignment});
    if (problem.requests.size() < numBuffers && rng.below(10) == 0)
      problem.requests.push_back(
          {64 * static_cast<int64_t>(1 + rng.below(4096)), step, step + 1, kAlignment});
  }
  for (int64_t step = forwardSteps; step < lastStep && problem.requests.size() < numBuffers;
       ++step) {
    int64_t mirrored = lastStep - 1 - step;
    problem.requests.push_back({bytes[mirrored], step, step + 2, kAlignment});
    if (problem.requests.size() < numBuffers && rng.below(10) == 0)
      problem.requests.push_back(
          {64 * static_cast<int64_t>(1 + rng.below(4096)), step, step + 1, kAlignment});
  }
  return problem;
}

Problem makeRandomProblem(size_t numBuffers, int64_t horizon, int64_t maxSize, uint64_t seed,
                          bool mixedAlignment) {
  Rng rng(seed);
  Problem problem;
  problem.requests.reserve(numBuffers);
  static constexpr int64_t kAlignments[] = {1, 8, 64};
  for (size_t i = 0; i < numBuffers; ++i) {
    Request r;
    r.begin = static_cast<int64_t>(rng.below(static_cast<uint64_t>(horizon)));
    // Mostly short lives, some that span much of the horizon.
    int64_t room = horizon - r.begin;
    int64_t span = rng.below(4) == 0 ? room : std::min<int64_t>(room, 1 + horizon / 8);
    r.end = r.begin + 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(span)));
    r.size =
        rng.below(20) == 0 ? 0 : static_cast<int64_t>(rng.below(static_cast<uint64_t>(maxSize)));
    r.alignment = mixedAlignment ? kAlignments[rng.below(3)] : 1;
    problem.requests.push_back(r);
  }
  return problem;
}

} // namespace wirc::plan
