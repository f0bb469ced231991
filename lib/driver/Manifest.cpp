//===- Manifest.cpp - Output directories and their manifest ---------------===//
#include "wirc/driver/Manifest.h"

#include "wirc/support/OutputFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wirc {

namespace fs = std::filesystem;

OutputFiles buildOutputDirectory(const ir::Module &module, const std::string &wrapper,
                                 const std::vector<cuda::KernelImage> &images,
                                 const std::string &arch, OutputFiles extra) {
  OutputFiles files;
  files.emplace_back(module.name + ".cpp", wrapper);
  for (auto &file : extra)
    files.push_back(std::move(file));
  for (const cuda::KernelImage &image : images) {
    files.emplace_back("kernels/" + image.fileStem + ".cubin", image.cubin);
    if (!image.ptx.empty())
      files.emplace_back("kernels/" + image.fileStem + ".ptx", image.ptx);
  }
  std::string manifest = buildManifest(module, files, images, arch);
  files.emplace_back("manifest.json", std::move(manifest));
  return files;
}

std::string buildManifest(const ir::Module &module, const OutputFiles &files,
                          const std::vector<cuda::KernelImage> &images, const std::string &arch) {
  // nlohmann::json objects are std::maps: keys come out sorted.
  using Json = nlohmann::json;
  Json manifest = Json::object();
  manifest["format"] = kManifestFormat;
  manifest["version"] = kManifestVersion;
  manifest["wirc_version"] = WIRC_VERSION;
  manifest["graph"] = module.name;
  manifest["wrapper"] = files.front().first;
  manifest["target_arch"] = arch;

  std::set<std::string> architectures;
  Json kernels = Json::array();
  for (const cuda::KernelImage &image : images) {
    Json k = Json::object();
    k["name"] = image.kernel;
    k["configs"] = image.configs;
    k["language"] = image.language;
    k["entry"] = image.entry;
    k["cubin"] = "kernels/" + image.fileStem + ".cubin";
    k["ptx"] = image.ptx.empty() ? Json() : Json("kernels/" + image.fileStem + ".ptx");
    // An image the graph carried was not compiled here: its architecture
    // and toolchain are whatever produced it.
    k["arch"] = image.arch.empty() ? Json() : Json(image.arch);
    k["hash"] = image.key.empty() ? Json() : Json(image.key);
    k["toolchain"] = image.toolchain.empty() ? Json("from the graph") : Json(image.toolchain);
    if (!image.arch.empty())
      architectures.insert(image.arch);
    kernels.push_back(std::move(k));
  }
  manifest["kernels"] = std::move(kernels);
  manifest["architectures"] = architectures;

  Json plans = Json::array();
  for (const ir::MemoryPlanStats &stats : module.memoryStats) {
    Json p = Json::object();
    p["function"] = stats.function;
    p["device"] = stats.device;
    p["strategy"] = stats.strategy;
    p["lower_bound_bytes"] = stats.lowerBound;
    p["peak_bytes"] = stats.peak;
    p["lower_bound"] = stats.lowerBoundExpr;
    p["peak"] = stats.peakExpr;
    p["method"] = stats.method;
    p["pools"] = stats.pools;
    plans.push_back(std::move(p));
  }
  manifest["memory_plans"] = std::move(plans);

  Json listing = Json::object();
  for (const auto &[path, contents] : files)
    listing[path] = contents.size();
  manifest["files"] = std::move(listing);
  return manifest.dump(2) + "\n";
}

namespace {

/// Whether \p dir may be replaced: empty, or an earlier output directory.
bool replaceable(const fs::path &dir) {
  std::error_code ec;
  if (fs::is_empty(dir, ec) && !ec)
    return true;
  std::string manifest;
  if (!readWholeFile((dir / "manifest.json").string(), manifest).empty())
    return false;
  return manifest.find(fmt::format("\"format\": \"{}\"", kManifestFormat)) != std::string::npos;
}

bool writeNewFile(const fs::path &path, std::string_view contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return false;
  bool ok = true;
  while (ok && !contents.empty()) {
    ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    if (ok)
      contents.remove_prefix(static_cast<size_t>(n));
  }
  int saved = errno;
  ok = ::close(fd) == 0 && ok;
  errno = ok ? 0 : saved;
  return ok;
}

/// Whether \p dir holds exactly \p files: no other file, every byte equal.
bool holdsExactly(const fs::path &dir, const OutputFiles &files) {
  std::error_code ec;
  size_t regular = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (!it->is_directory(ec))
      ++regular;
  if (ec || regular != files.size())
    return false;
  std::string existing;
  for (const auto &[path, contents] : files)
    if (!readWholeFile((dir / path).string(), existing).empty() || existing != contents)
      return false;
  return true;
}

} // namespace

namespace {

/// "out/" names the directory "out".
fs::path directoryPath(const std::string &dir) {
  fs::path target(dir);
  while (target.has_relative_path() && target.filename().empty())
    target = target.parent_path();
  return target;
}

} // namespace

std::string checkOutputDirectory(const std::string &dir) {
  fs::path target = directoryPath(dir);
  if (target.empty() || target.filename() == "." || target.filename() == "..")
    return fmt::format("cannot use '{}' as an output directory; name a directory such as out/",
                       dir);
  std::error_code ec;
  if (!fs::exists(target, ec))
    return {};
  if (!fs::is_directory(target, ec))
    return fmt::format("cannot write output directory '{}': it exists and is not a directory",
                       dir);
  if (!replaceable(target))
    return fmt::format("refusing to replace '{}': it is not empty and holds no wirc "
                       "manifest.json",
                       dir);
  return {};
}

std::string writeOutputDirectory(const std::string &dir, const OutputFiles &files) {
  if (std::string error = checkOutputDirectory(dir); !error.empty())
    return error;
  fs::path target = directoryPath(dir);
  std::error_code ec;
  bool exists = fs::exists(target, ec);

  // An up-to-date directory is left alone, so a recompile that changes
  // nothing writes nothing and file times stay as they were.
  if (exists && holdsExactly(target, files))
    return {};

  fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string staging = (parent / fmt::format(".{}.tmp-XXXXXX", target.filename().string())).string();
  if (!::mkdtemp(staging.data()))
    return fmt::format("cannot create a temporary directory next to '{}': {}", dir,
                       std::strerror(errno));
  // mkdtemp creates 0700; give the directory the permissions mkdir would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(staging.c_str(), 0777 & ~mask);
  auto discard = [&](std::string error) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return error;
  };
  for (const auto &[path, contents] : files) {
    fs::path file = fs::path(staging) / path;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      return discard(fmt::format("cannot create '{}' in '{}': {}", fs::path(path).parent_path().string(),
                                 dir, ec.message()));
    // The staging directory is private until the swap below: plain writes
    // suffice, and save a rename per file.
    if (!writeNewFile(file, contents))
      return discard(fmt::format("cannot write '{}' in '{}': {}", path, dir, std::strerror(errno)));
  }
  if (!exists) {
    if (::rename(staging.c_str(), target.c_str()) != 0)
      return discard(fmt::format("cannot create '{}': {}", dir, std::strerror(errno)));
    return {};
  }
  // Swap the new directory with the old one in one step, then delete the old.
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0)
    return discard({});
  // Without RENAME_EXCHANGE: move the old directory aside, then the new in.
  std::string aside = (parent / fmt::format(".{}.old-XXXXXX", target.filename().string())).string();
  if (!::mkdtemp(aside.data()) || ::rename(target.c_str(), aside.c_str()) != 0)
    return discard(fmt::format("cannot replace '{}': {}", dir, std::strerror(errno)));
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    int saved = errno;
    ::rename(aside.c_str(), target.c_str());
    return discard(fmt::format("cannot replace '{}': {}", dir, std::strerror(saved)));
  }
  fs::remove_all(aside, ec);
  return {};
}

} // namespace wirc
