//===- wirc/ir/Verifier.h - Structural checks on Wrapper IR ---------------===//
#ifndef WIRC_IR_VERIFIER_H
#define WIRC_IR_VERIFIER_H

#include "wirc/ir/WrapperIR.h"

#include <string>
#include <vector>

namespace wirc::ir {

/// Checks the invariants every pass must preserve: each buffer is defined
/// before use, never used after it is freed, freed at most once, belongs to
/// the function using it; references are in range; guards and subgraph
/// markers balance; each function ends in exactly one output. Returns one
/// message per violation (empty when the module is well formed).
std::vector<std::string> verifyModule(const Module &module);

} // namespace wirc::ir

#endif // WIRC_IR_VERIFIER_H
