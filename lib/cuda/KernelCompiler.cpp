//===- KernelCompiler.cpp - Parallel, cached kernel compilation -----------===//
#include "wirc/cuda/KernelCompiler.h"

#include "Toolkit.h"
#include "wirc/cuda/ContentHash.h"
#include "wirc/support/OutputFile.h"

#include <fmt/format.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <mutex>
#include <thread>

#include <sys/stat.h>

namespace wirc::cuda {

namespace fs = std::filesystem;
using namespace detail;

std::string_view sourceKindName(SourceKind kind) {
  switch (kind) {
  case SourceKind::PTX:
    return "ptx";
  case SourceKind::CUDA:
    return "cuda";
  case SourceKind::LLVM:
    return "llvm";
  }
  return "?";
}

bool compilerBuiltIn() {
#ifdef WIRC_HAVE_CUDA_COMPILER
  return true;
#else
  return false;
#endif
}

std::string checkArch(std::string_view arch) {
  auto bad = [&] {
    return fmt::format("invalid CUDA architecture '{}'; expected sm_NN with an optional 'a' or "
                       "'f' suffix, such as sm_90",
                       arch);
  };
  if (!arch.starts_with("sm_"))
    return bad();
  std::string_view rest = arch.substr(3);
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f'))
    rest.remove_suffix(1);
  if (rest.size() < 2 || rest.size() > 3 || rest.front() == '0')
    return bad();
  for (char c : rest)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return bad();
  return {};
}

std::string defaultCacheDir() {
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return (fs::path(xdg) / "wirc").string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "wirc").string();
  return {};
}

namespace {

constexpr std::string_view kCacheMagic = "wirc-kernel-cache 1";

/// FNV-1a, 64 bits: catches a damaged entry at a fraction of SHA-256's cost
/// (entries are written atomically, so this guards against disk damage and
/// foreign edits, not against torn writes).
uint64_t checksum(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data)
    h = (h ^ c) * 0x100000001b3ull;
  return h;
}

/// Compiled kernels on disk, one file per key:
///   wirc-kernel-cache 1\n KEY\n PTX_BYTES CUBIN_BYTES FNV1A64(PTX CUBIN)\n PTX CUBIN
/// Entries are written atomically, so concurrent wirc processes may share a
/// cache; an entry that fails any check is treated as a miss.
class KernelCache {
public:
  explicit KernelCache(std::string dir) : root(dir.empty() ? fs::path() : fs::path(dir) / "kernels") {}

  bool enabled() const { return !root.empty(); }

  bool read(const std::string &key, std::string &ptx, std::string &cubin) const {
    std::string text;
    if (!readWholeFile(entryPath(key).string(), text).empty())
      return false;
    std::string_view rest(text);
    auto line = [&rest]() -> std::optional<std::string_view> {
      size_t end = rest.find('\n');
      if (end == std::string_view::npos)
        return std::nullopt;
      std::string_view l = rest.substr(0, end);
      rest.remove_prefix(end + 1);
      return l;
    };
    auto magic = line(), storedKey = line(), sizes = line();
    if (magic != kCacheMagic || storedKey != key || !sizes)
      return false;
    size_t ptxSize = 0, cubinSize = 0;
    unsigned long long sum = 0;
    if (std::sscanf(std::string(*sizes).c_str(), "%zu %zu %16llx", &ptxSize, &cubinSize, &sum) != 3 ||
        ptxSize + cubinSize != rest.size() || checksum(rest) != sum)
      return false;
    ptx.assign(rest.substr(0, ptxSize));
    cubin.assign(rest.substr(ptxSize));
    return true;
  }

  /// Returns an error message, empty on success.
  std::string write(const std::string &key, const std::string &ptx,
                    const std::string &cubin) const {
    fs::path path = entryPath(key);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message());
    std::string payload = ptx + cubin;
    std::string text = fmt::format("{}\n{}\n{} {} {:016x}\n", kCacheMagic, key, ptx.size(),
                                   cubin.size(), checksum(payload));
    return writeFileAtomically(path.string(), text + payload);
  }

private:
  fs::path entryPath(const std::string &key) const { return root / key.substr(0, 2) / key; }
  fs::path root;
};

/// Whether \p ptx defines the entry point \p entry (`.entry NAME(`).
bool definesEntry(std::string_view ptx, std::string_view entry) {
  for (size_t at = ptx.find(".entry"); at != std::string_view::npos;
       at = ptx.find(".entry", at + 1)) {
    size_t p = at + 6;
    if (p >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[p])))
      continue;
    while (p < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[p])))
      ++p;
    if (ptx.substr(p, entry.size()) != entry)
      continue;
    p += entry.size();
    if (p < ptx.size() && (ptx[p] == '(' || std::isspace(static_cast<unsigned char>(ptx[p]))))
      return true;
  }
  return false;
}

/// The tools a compilation needs, loaded on first use so that a compile
/// served from the cache loads none of them. Their versions (part of every
/// key) come from a memo in the cache directory, keyed by the identity of
/// the tool's file (path, size, modification time, inode), so they are known
/// without loading the tool; a memo miss loads the tool and asks it.
class Toolset {
public:
  Toolset(std::string root, const std::string &cacheDir)
      : root(std::move(root)),
        memoDir(cacheDir.empty() ? fs::path() : fs::path(cacheDir) / "toolkit") {}

  /// The versions; false with \p error set when a tool is unavailable.
  bool assemblerVersion(std::string &version, std::string &error) {
    return probe(ptxAssemblerFile(root), version, error, [&](std::string &e) -> std::string {
      const PtxAssembler *tool = assembler(e);
      return tool ? tool->version() : std::string();
    });
  }
  bool cudaVersion(std::string &version, std::string &error) {
    return probe(cudaFrontendFile(root), version, error, [&](std::string &e) -> std::string {
      const CudaFrontend *tool = cuda(e);
      return tool ? tool->version() : std::string();
    });
  }

  /// The tools themselves; null with \p error set when unavailable. Safe to
  /// call from several threads.
  const PtxAssembler *assembler(std::string &error) {
    return get(assemblerSlot, error, [&](std::string &e) { return loadPtxAssembler(root, e); });
  }
  const CudaFrontend *cuda(std::string &error) {
    return get(cudaSlot, error, [&](std::string &e) { return loadCudaFrontend(root, e); });
  }
  const LlvmBackend *llvm(std::string &error) {
    return get(llvmSlot, error, [&](std::string &e) { return loadLlvmBackend(e); });
  }

private:
  template <class T> struct Slot {
    std::once_flag once;
    std::unique_ptr<T> tool;
    std::string error;
  };

  template <class T, class Load>
  static const T *get(Slot<T> &slot, std::string &error, Load load) {
    std::call_once(slot.once, [&] { slot.tool = load(slot.error); });
    if (!slot.tool)
      error = slot.error;
    return slot.tool.get();
  }

  template <class Ask>
  bool probe(const std::string &file, std::string &version, std::string &error, Ask ask) {
    struct stat st {};
    std::string stamp;
    fs::path memo;
    if (!memoDir.empty() && !file.empty() && ::stat(file.c_str(), &st) == 0) {
      std::error_code ec;
      fs::path real = fs::canonical(file, ec);
      stamp = fmt::format("{}\n{}\n{}.{:09}\n{}\n", ec ? file : real.string(), st.st_size,
                          st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ino);
      memo = memoDir / sha256Hex(stamp).substr(0, 32);
      std::string text;
      if (readWholeFile(memo.string(), text).empty() && text.starts_with(stamp) &&
          text.size() > stamp.size()) {
        version = text.substr(stamp.size());
        return true;
      }
    }
    version = ask(error);
    if (version.empty())
      return false;
    if (!memo.empty()) {
      std::error_code ec;
      fs::create_directories(memoDir, ec);
      writeFileAtomically(memo.string(), stamp + version); // a lost memo costs a load
    }
    return true;
  }

  std::string root;
  fs::path memoDir;
  Slot<PtxAssembler> assemblerSlot;
  Slot<CudaFrontend> cudaSlot;
  Slot<LlvmBackend> llvmSlot;
};

} // namespace

CompileResult compileKernels(std::span<const KernelJob> jobs, const CompilerOptions &options) {
  CompileResult result;
  if (jobs.empty())
    return result;
  if (std::string error = checkArch(options.arch); !error.empty()) {
    result.setupError = error;
    return result;
  }

  // The versions of the tools the jobs need; the tools load when a job
  // misses the cache.
  Toolset tools(resolveCudaRoot(options.cudaRoot), options.cacheDir);
  std::string assemblerVersion, cudaVersion, llvmVersionText;
  if (!tools.assemblerVersion(assemblerVersion, result.setupError))
    return result;
  for (const KernelJob &job : jobs) {
    if (job.kind == SourceKind::CUDA && cudaVersion.empty() &&
        !tools.cudaVersion(cudaVersion, result.setupError))
      return result;
    if (job.kind == SourceKind::LLVM && llvmVersionText.empty() &&
        (llvmVersionText = llvmVersion(result.setupError)).empty())
      return result;
  }

  // The key covers everything that shapes the result, including the tools'
  // versions, so a toolkit upgrade never serves a stale image. Keys are
  // hashed in the workers: on a warm run hashing the sources is most of the
  // work left.
  result.kernels.resize(jobs.size());
  auto computeKey = [&](size_t i) {
    const KernelJob &job = jobs[i];
    CompiledKernel &out = result.kernels[i];
    out.toolchain = assemblerVersion;
    Sha256 key;
    key.field(kCacheMagic);
    key.field(sourceKindName(job.kind));
    key.field(options.arch);
    key.field(job.entry);
    key.field(assemblerVersion);
    if (job.kind == SourceKind::CUDA) {
      key.field(cudaVersion);
      out.toolchain = cudaVersion + " + " + out.toolchain;
    } else if (job.kind == SourceKind::LLVM) {
      key.field(llvmVersionText);
      key.field(llvmProcessorFor(options.arch));
      out.toolchain = llvmVersionText + " + " + out.toolchain;
    }
    key.field(job.source);
    out.key = key.hexDigest();
  };

  KernelCache cache(options.cacheDir);
  std::vector<std::optional<KernelError>> errors(jobs.size());
  std::vector<std::string> cacheWarnings(jobs.size()), missingTool(jobs.size());
  auto work = [&](size_t i) {
    const KernelJob &job = jobs[i];
    CompiledKernel &out = result.kernels[i];
    computeKey(i);
    if (cache.enabled() && cache.read(out.key, out.ptx, out.cubin)) {
      out.fromCache = true;
      return;
    }
    // A tool that fails to load fails the whole compilation, once.
    auto fail = [&](std::string message, std::string log, bool toolMissing = false) {
      if (toolMissing)
        missingTool[i] = std::move(message);
      else
        errors[i] = KernelError{i, std::move(message), std::move(log)};
    };
    std::string ptx, unavailable;
    switch (job.kind) {
    case SourceKind::PTX:
      ptx = job.source;
      break;
    case SourceKind::CUDA: {
      const CudaFrontend *cuda = tools.cuda(unavailable);
      if (!cuda)
        return fail(unavailable, "", true);
      ToolResult r = cuda->compile(job.name, job.source, options.arch);
      if (!r.ok)
        return fail(fmt::format("{} cannot compile CUDA C++ kernel '{}'", cuda->version(),
                                job.name),
                    r.log);
      ptx = std::move(r.output);
      break;
    }
    case SourceKind::LLVM: {
      const LlvmBackend *llvm = tools.llvm(unavailable);
      if (!llvm)
        return fail(unavailable, "", true);
      ToolResult r = llvm->compile(job.name, job.source, options.arch);
      if (!r.ok)
        return fail(r.summary.empty() ? fmt::format("{} cannot compile LLVM IR kernel '{}' to PTX",
                                                    llvm->version(), job.name)
                                      : r.summary,
                    r.log);
      ptx = std::move(r.output);
      break;
    }
    }
    if (!definesEntry(ptx, job.entry))
      return fail(fmt::format("the PTX of {} kernel '{}' defines no entry point '{}'{}",
                              sourceKindName(job.kind), job.name, job.entry,
                              job.kind == SourceKind::CUDA
                                  ? " (declare the kernel extern \"C\" __global__)"
                                  : ""),
                  "");
    const PtxAssembler *assembler = tools.assembler(unavailable);
    if (!assembler)
      return fail(unavailable, "", true);
    ToolResult r = assembler->assemble(ptx, options.arch);
    if (!r.ok)
      return fail(fmt::format("{} cannot assemble the PTX of kernel '{}' for {}",
                              assembler->version(), job.name, options.arch),
                  r.log);
    out.ptx = std::move(ptx);
    out.cubin = std::move(r.output);
    if (cache.enabled())
      cacheWarnings[i] = cache.write(out.key, out.ptx, out.cubin);
  };

  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(jobs.size())));
  std::atomic<size_t> next{0};
  // An exception (out of memory) must not escape a worker thread, where it
  // would terminate the process: the first, in job order, is rethrown here.
  std::vector<std::exception_ptr> thrown(jobs.size());
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      try {
        work(i);
      } catch (...) {
        thrown[i] = std::current_exception();
      }
    }
  };
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(worker);
  }
  for (const std::exception_ptr &e : thrown)
    if (e)
      std::rethrow_exception(e);

  for (std::string &missing : missingTool)
    if (!missing.empty()) {
      result.setupError = std::move(missing);
      result.kernels.clear();
      return result;
    }
  // Report in job order, whatever order the workers finished in.
  for (size_t i = 0; i < jobs.size(); ++i) {
    const CompiledKernel &out = result.kernels[i];
    if (errors[i]) {
      result.errors.push_back(std::move(*errors[i]));
      continue;
    }
    out.fromCache ? ++result.cached : ++result.compiled;
    if (options.log)
      options.log(fmt::format("kernel '{}': {} {} ({})", jobs[i].name,
                              out.fromCache ? "cache hit" : "compiled, cache miss",
                              out.key.substr(0, 16), out.toolchain));
  }
  for (const std::string &warning : cacheWarnings)
    if (!warning.empty() && options.warn) {
      options.warn(fmt::format("kernels were not cached: {}", warning));
      break;
    }
  if (!result.errors.empty())
    result.kernels.clear();
  return result;
}

} // namespace wirc::cuda
