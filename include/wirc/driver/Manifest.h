//===- wirc/driver/Manifest.h - The output directory's manifest.json ------===//
//
// An output directory (`wirc compile --emit=cpp -o DIR/`) describes itself
// in manifest.json: the wirc version, the wrapper, every kernel image with
// its architecture and content hash, and the memory plan's figures. The
// manifest is deterministic: sorted keys, no timestamps, no absolute paths.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_DRIVER_MANIFEST_H
#define WIRC_DRIVER_MANIFEST_H

#include "wirc/cuda/ModuleKernels.h"
#include "wirc/ir/WrapperIR.h"

#include <string>
#include <utility>
#include <vector>

namespace wirc {

inline constexpr std::string_view kManifestFormat = "wirc.manifest";
inline constexpr int kManifestVersion = 1;

/// The files of an output directory, by relative path, in a fixed order.
using OutputFiles = std::vector<std::pair<std::string, std::string>>;

/// The output directory of a C++ compilation: \p wrapper (the emitted
/// source, GRAPH.cpp), then \p extra (such as a CMakeLists.txt),
/// kernels/STEM.cubin and kernels/STEM.ptx for each image, and manifest.json
/// last, listing them all.
OutputFiles buildOutputDirectory(const ir::Module &module, const std::string &wrapper,
                                 const std::vector<cuda::KernelImage> &images,
                                 const std::string &arch, OutputFiles extra = {});

/// manifest.json for those files (\p files without the manifest itself).
std::string buildManifest(const ir::Module &module, const OutputFiles &files,
                          const std::vector<cuda::KernelImage> &images, const std::string &arch);

/// Checks that \p dir may become an output directory: it is absent, empty or
/// an earlier output directory. Returns an error message, empty if it may.
std::string checkOutputDirectory(const std::string &dir);

/// Replaces directory \p dir with \p files as one step: the files are
/// written to a temporary sibling directory that is then swapped into
/// place, so a failure leaves no partial directory and readers see the old
/// contents or the new, never a mix. An existing \p dir is replaced only if
/// it is empty or holds a wirc manifest.json; one that already holds exactly
/// \p files is not touched. Returns an error message, empty on success.
std::string writeOutputDirectory(const std::string &dir, const OutputFiles &files);

} // namespace wirc

#endif // WIRC_DRIVER_MANIFEST_H
