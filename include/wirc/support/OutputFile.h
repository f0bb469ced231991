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

/// The text of an input file. A regular file is mapped rather than copied:
/// a graph of a million nodes is a quarter of a gigabyte, and a mapping costs
/// neither the copy nor anonymous memory, and can drop its pages once read
/// (they come back from the page cache if a late diagnostic needs them).
/// Standard input and other streams are read into memory.
class InputText {
public:
  InputText() = default;
  InputText(const InputText &) = delete;
  InputText &operator=(const InputText &) = delete;
  ~InputText();

  /// Opens \p path ("-" is standard input). Returns an error message, empty
  /// on success.
  std::string open(const std::string &path);
  std::string_view text() const { return mapped ? std::string_view(mapped, mappedSize) : copy; }
  /// Tells the system the text will not be read again soon: its pages leave
  /// memory and are read back on demand. A no-op for a copied stream.
  void dropResidentPages() { dropResidentPages(0, text().size()); }
  /// The same for the bytes [\p begin, \p end) of the text (whole pages).
  void dropResidentPages(size_t begin, size_t end);

private:
  std::string copy;
  const char *mapped = nullptr;
  size_t mappedSize = 0;
};

} // namespace wirc

#endif // WIRC_SUPPORT_OUTPUTFILE_H
