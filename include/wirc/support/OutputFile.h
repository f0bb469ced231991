//===- wirc/support/OutputFile.h - Outputs that appear only on success ----===//
#ifndef WIRC_SUPPORT_OUTPUTFILE_H
#define WIRC_SUPPORT_OUTPUTFILE_H

#include <string>
#include <string_view>

namespace wirc {

/// Writes \p contents to \p path atomically: a temporary file in the same
/// directory is written, flushed and renamed over \p path, so readers never
/// see a partial file and a failed run leaves any previous file untouched.
/// "-" writes to standard output. Returns an error message, empty on success.
std::string writeFileAtomically(const std::string &path, std::string_view contents);

/// Reads a whole file ("-" is standard input). Returns an error message,
/// empty on success.
std::string readWholeFile(const std::string &path, std::string &contents);

} // namespace wirc

#endif // WIRC_SUPPORT_OUTPUTFILE_H
