//===- wirc/plan/Synthetic.h - Deterministic synthetic traces -------------===//
//
// Generators for benchmark and test problems shaped like the wrappers of
// neural networks. The same size and seed give the same problem everywhere:
// the generators use their own pseudo-random numbers, not <random>'s
// distributions, whose results differ between standard libraries.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PLAN_SYNTHETIC_H
#define WIRC_PLAN_SYNTHETIC_H

#include "wirc/plan/Problem.h"

#include <cstddef>
#include <cstdint>

namespace wirc::plan {

/// An inference-like trace of \p numBuffers requests: a chain of kernels in
/// four stages whose activation sizes halve from stage to stage, each
/// activation live until the next kernel, with some much larger and some
/// tiny buffers, and skip connections that stay live for 2 to 40 steps.
Problem makeInferenceTrace(size_t numBuffers, uint64_t seed = 1);

/// A training-like trace of \p numBuffers requests: the forward chain of
/// makeInferenceTrace, where most activations stay live until the mirrored
/// step of the backward pass, which also creates short-lived gradients.
Problem makeTrainingTrace(size_t numBuffers, uint64_t seed = 1);

/// A random problem for property tests: \p numBuffers requests with sizes
/// below \p maxSize, live ranges inside [0, \p horizon) and alignments drawn
/// from {1, 8, 64} when \p mixedAlignment, else 1.
Problem makeRandomProblem(size_t numBuffers, int64_t horizon, int64_t maxSize, uint64_t seed,
                          bool mixedAlignment = false);

} // namespace wirc::plan

#endif // WIRC_PLAN_SYNTHETIC_H
