//===- wirc/support/BuryPointer.h - Skip teardown at exit -----------------===//
//
// A compiler that is about to exit gains nothing from destroying its graph
// and IR one small allocation at a time (the process is torn down anyway);
// on large graphs that teardown is a visible share of the run. Like clang's
// -disable-free, the driver hands such objects to buryPointer instead, which
// keeps them reachable so leak checkers stay quiet.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_BURYPOINTER_H
#define WIRC_SUPPORT_BURYPOINTER_H

#include <memory>

namespace wirc {

/// Keeps \p pointer reachable until exit without ever freeing it.
void buryPointer(const void *pointer);

template <typename T> void buryPointer(std::unique_ptr<T> pointer) {
  buryPointer(static_cast<const void *>(pointer.release()));
}

} // namespace wirc

#endif // WIRC_SUPPORT_BURYPOINTER_H
