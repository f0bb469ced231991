//===- OutputFile.cpp -----------------------------------------------------===//
#include "wirc/support/OutputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace wirc {

static bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string writeFileAtomically(const std::string &path, std::string_view contents) {
  if (path == "-") {
    if (!writeAll(STDOUT_FILENO, contents))
      return fmt::format("cannot write to standard output: {}", std::strerror(errno));
    return {};
  }
  // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written in
  // place: renaming over it would replace the device with a file.
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
                         !S_ISDIR(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    bool ok = writeAll(fd, contents);
    int savedErrno = errno;
    ok = (::close(fd) == 0) && ok;
    if (!ok)
      return fmt::format("cannot write '{}': {}", path, std::strerror(savedErrno));
    return {};
  }
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  std::string hidden = ".";
  hidden += target.filename().string();
  hidden += ".tmp-XXXXXX";
  std::string tmpl = (dir.empty() ? std::filesystem::path(".") : dir) / hidden;
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return fmt::format("cannot create a temporary file next to '{}': {}", path,
                       std::strerror(errno));
  // mkstemp creates 0600; give the output the permissions a plain create would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  bool ok = writeAll(fd, contents);
  int savedErrno = errno;
  ok = (::close(fd) == 0) && ok;
  if (!ok) {
    ::unlink(tmpl.c_str());
    return fmt::format("cannot write '{}': {}", path, std::strerror(savedErrno));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    savedErrno = errno;
    ::unlink(tmpl.c_str());
    return fmt::format("cannot write '{}': {}", path, std::strerror(savedErrno));
  }
  return {};
}

std::string readWholeFile(const std::string &path, std::string &contents) {
  contents.clear();
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fmt::format("cannot open '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (path != "-" && ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fmt::format("cannot read '{}': is a directory", path);
  }
  // One allocation of the final size: a graph of a million nodes is a
  // quarter of a gigabyte, and growing by doubling held up to twice that.
  if (path != "-" && S_ISREG(st.st_mode) && st.st_size > 0)
    contents.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0)
      break;
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int savedErrno = errno;
      if (path != "-")
        ::close(fd);
      return fmt::format("cannot read '{}': {}", path, std::strerror(savedErrno));
    }
    contents.append(buffer, static_cast<size_t>(n));
  }
  if (path != "-")
    ::close(fd);
  return {};
}

InputText::~InputText() {
  if (mapped)
    ::munmap(const_cast<char *>(mapped), mappedSize);
}

std::string InputText::open(const std::string &path) {
  if (path != "-") {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return fmt::format("cannot open '{}': {}", path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      // Populated up front: one call maps every page of the page cache
      // instead of a fault per page while parsing.
      void *p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                       MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        ::close(fd);
        mapped = static_cast<const char *>(p);
        mappedSize = static_cast<size_t>(st.st_size);
        return {};
      }
    }
    ::close(fd);
  }
  // Streams, empty and special files, and anything that cannot be mapped.
  return readWholeFile(path, copy);
}

void InputText::dropResidentPages(size_t begin, size_t end) {
  // Whole pages only: pages straddling `begin` or `end` stay.
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t first = (begin + page - 1) / page * page;
  size_t last = end >= mappedSize ? mappedSize : end / page * page;
  if (mapped && last > first)
    ::madvise(const_cast<char *>(mapped) + first, last - first, MADV_DONTNEED);
}

} // namespace wirc
