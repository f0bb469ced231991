//===- Toolkit.cpp - nvJitLink, ptxas, NVRTC and LLVM behind one interface ===//
//
// The toolkit's libraries are opened with dlopen from the toolkit root, so
// the wirc binary has no link-time dependency on them and a missing or
// different toolkit is a message, not a loader failure at startup. The
// headers found at configure time give the functions' types.
//
//===----------------------------------------------------------------------===//
#include "Toolkit.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef WIRC_HAVE_CUDA_COMPILER
#include <nvJitLink.h>
#include <nvrtc.h>
#endif
#ifdef WIRC_HAVE_LLVM_NVPTX
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#endif

extern char **environ;

namespace wirc::cuda::detail {

namespace fs = std::filesystem;

std::string resolveCudaRoot(const std::string &requested) {
  if (!requested.empty())
    return requested;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
#ifdef WIRC_CUDA_ROOT
  return WIRC_CUDA_ROOT;
#else
  return "/usr/local/cuda";
#endif
}

namespace {

constexpr std::initializer_list<const char *> kNvJitLinkNames = {
    "libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"};
constexpr std::initializer_list<const char *> kNvrtcNames = {"libnvrtc.so", "libnvrtc.so.13",
                                                               "libnvrtc.so.12"};

/// The first of \p names in \p dir, or empty.
[[maybe_unused]] std::string findLibrary(const fs::path &dir, std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (fs::exists(dir / name))
      return (dir / name).string();
  return {};
}

/// Opens the first of \p names found in \p dir. Libraries stay loaded for
/// the life of the process: unloading the toolkit buys nothing.
[[maybe_unused]] void *openLibrary(const fs::path &dir, std::initializer_list<const char *> names,
                  std::string &error) {
  std::string tried;
  for (const char *name : names) {
    fs::path path = dir / name;
    if (!fs::exists(path))
      continue;
    if (void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
      return handle;
    error = fmt::format("cannot load '{}': {}", path.string(), ::dlerror());
    return nullptr;
  }
  error = fmt::format("'{}' not found in '{}'", *names.begin(), dir.string());
  return nullptr;
}

template <class Fn> bool bind(void *library, const char *name, Fn &fn, std::string &error) {
  fn = reinterpret_cast<Fn>(::dlsym(library, name));
  if (!fn)
    error = fmt::format("the library has no function '{}'", name);
  return fn != nullptr;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs \p argv with stdout and stderr captured into one string. Returns the
/// exit status, or -1 when the program could not be started.
int runProgram(const std::vector<std::string> &argv, const fs::path &logFile, std::string &log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logFile.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    log = fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc));
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  log = readFile(logFile);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A private temporary directory, removed with its contents.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/wirc-XXXXXX", base && *base ? base : "/tmp");
    if (::mkdtemp(pattern.data()))
      path = pattern;
  }
  ~TempDir() {
    if (!path.empty()) {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  fs::path path;
};

void replaceAll(std::string &text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

/// The ptxas binary: the fallback when nvJitLink cannot be loaded.
class Ptxas final : public PtxAssembler {
public:
  Ptxas(std::string path, std::string versionText)
      : path(std::move(path)), versionText(std::move(versionText)) {}

  const std::string &version() const override { return versionText; }

  ToolResult assemble(std::string_view ptx, const std::string &arch) const override {
    TempDir dir;
    if (dir.path.empty())
      return failure(fmt::format("cannot create a temporary directory: {}",
                                     std::strerror(errno)));
    fs::path input = dir.path / "kernel.ptx", output = dir.path / "kernel.cubin";
    {
      std::ofstream out(input, std::ios::binary);
      out.write(ptx.data(), static_cast<std::streamsize>(ptx.size()));
      if (!out)
        return failure(fmt::format("cannot write '{}'", input.string()));
    }
    std::string log;
    int status = runProgram({path, "-arch=" + arch, "-o", output.string(), input.string()},
                            dir.path / "log", log);
    // The log names the temporary file; name the kernel's PTX instead so
    // diagnostics do not depend on the temporary directory.
    replaceAll(log, input.string(), "kernel.ptx");
    if (status != 0)
      return failure(log);
    return success(readFile(output), std::move(log));
  }

private:
  std::string path;
  std::string versionText;
};

std::string findPtxas(const std::string &root) {
  fs::path inRoot = fs::path(root) / "bin" / "ptxas";
  if (::access(inRoot.c_str(), X_OK) == 0)
    return inRoot.string();
  const char *pathVar = std::getenv("PATH");
  std::string_view dirs = pathVar ? pathVar : "";
  while (!dirs.empty()) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    dirs.remove_prefix(colon == std::string_view::npos ? dirs.size() : colon + 1);
    if (dir.empty())
      continue;
    fs::path candidate = fs::path(dir) / "ptxas";
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return {};
}

#ifdef WIRC_HAVE_CUDA_COMPILER

class NvJitLink final : public PtxAssembler {
public:
  static std::unique_ptr<NvJitLink> load(const std::string &root, std::string &error) {
    void *library = openLibrary(fs::path(root) / "lib64", kNvJitLinkNames, error);
    if (!library)
      return nullptr;
    auto self = std::unique_ptr<NvJitLink>(new NvJitLink);
    if (!bind(library, "nvJitLinkVersion", self->versionFn, error) ||
        !bind(library, "nvJitLinkCreate", self->create, error) ||
        !bind(library, "nvJitLinkDestroy", self->destroy, error) ||
        !bind(library, "nvJitLinkAddData", self->addData, error) ||
        !bind(library, "nvJitLinkComplete", self->complete, error) ||
        !bind(library, "nvJitLinkGetLinkedCubinSize", self->cubinSize, error) ||
        !bind(library, "nvJitLinkGetLinkedCubin", self->cubin, error) ||
        !bind(library, "nvJitLinkGetErrorLogSize", self->errorLogSize, error) ||
        !bind(library, "nvJitLinkGetErrorLog", self->errorLog, error))
      return nullptr;
    unsigned major = 0, minor = 0;
    if (self->versionFn(&major, &minor) != NVJITLINK_SUCCESS) {
      error = "nvJitLinkVersion failed";
      return nullptr;
    }
    self->versionText = fmt::format("nvJitLink {}.{}", major, minor);
    return self;
  }

  const std::string &version() const override { return versionText; }

  ToolResult assemble(std::string_view ptx, const std::string &arch) const override {
    std::string archOption = "-arch=" + arch;
    const char *options[] = {archOption.c_str()};
    nvJitLinkHandle handle = nullptr;
    if (nvJitLinkResult r = create(&handle, 1, options); r != NVJITLINK_SUCCESS)
      return failure(fmt::format("nvJitLinkCreate failed with code {}", int(r)));
    // nvJitLink reads PTX as a C string: pass the terminating zero too.
    std::string text(ptx);
    ToolResult result;
    if (addData(handle, NVJITLINK_INPUT_PTX, text.c_str(), text.size() + 1, "kernel.ptx") ==
            NVJITLINK_SUCCESS &&
        complete(handle) == NVJITLINK_SUCCESS) {
      size_t size = 0;
      if (cubinSize(handle, &size) == NVJITLINK_SUCCESS) {
        result.output.resize(size);
        result.ok = cubin(handle, result.output.data()) == NVJITLINK_SUCCESS;
      }
    }
    if (!result.ok) {
      result.output.clear();
      size_t size = 0;
      if (errorLogSize(handle, &size) == NVJITLINK_SUCCESS && size > 1) {
        result.log.resize(size);
        if (errorLog(handle, result.log.data()) == NVJITLINK_SUCCESS)
          result.log.resize(std::strlen(result.log.c_str()));
        else
          result.log.clear();
      }
    }
    destroy(&handle);
    return result;
  }

private:
  NvJitLink() = default;
  nvJitLinkResult (*versionFn)(unsigned *, unsigned *) = nullptr;
  nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **) = nullptr;
  nvJitLinkResult (*destroy)(nvJitLinkHandle *) = nullptr;
  nvJitLinkResult (*addData)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t,
                             const char *) = nullptr;
  nvJitLinkResult (*complete)(nvJitLinkHandle) = nullptr;
  nvJitLinkResult (*cubinSize)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*cubin)(nvJitLinkHandle, void *) = nullptr;
  nvJitLinkResult (*errorLogSize)(nvJitLinkHandle, size_t *) = nullptr;
  nvJitLinkResult (*errorLog)(nvJitLinkHandle, char *) = nullptr;
  std::string versionText;
};

class Nvrtc final : public CudaFrontend {
public:
  static std::unique_ptr<Nvrtc> load(const std::string &root, std::string &error) {
    void *library = openLibrary(fs::path(root) / "lib64", kNvrtcNames, error);
    if (!library)
      return nullptr;
    auto self = std::unique_ptr<Nvrtc>(new Nvrtc);
    int (*versionFn)(int *, int *) = nullptr;
    if (!bind(library, "nvrtcVersion", versionFn, error) ||
        !bind(library, "nvrtcCreateProgram", self->create, error) ||
        !bind(library, "nvrtcDestroyProgram", self->destroy, error) ||
        !bind(library, "nvrtcCompileProgram", self->compileFn, error) ||
        !bind(library, "nvrtcGetProgramLogSize", self->logSize, error) ||
        !bind(library, "nvrtcGetProgramLog", self->logFn, error) ||
        !bind(library, "nvrtcGetPTXSize", self->ptxSize, error) ||
        !bind(library, "nvrtcGetPTX", self->ptx, error))
      return nullptr;
    int major = 0, minor = 0;
    versionFn(&major, &minor);
    self->versionText = fmt::format("NVRTC {}.{}", major, minor);
    return self;
  }

  const std::string &version() const override { return versionText; }

  ToolResult compile(const std::string &name, std::string_view source,
                     const std::string &arch) const override {
    std::string text(source);
    std::string fileName = name + ".cu";
    nvrtcProgram program = nullptr;
    if (nvrtcResult r = create(&program, text.c_str(), fileName.c_str(), 0, nullptr, nullptr);
        r != NVRTC_SUCCESS)
      return failure(fmt::format("nvrtcCreateProgram failed with code {}", int(r)));
    // PTX for the virtual architecture of the target; the assembler makes
    // the cubin, as for every other kernel.
    std::string archOption = "--gpu-architecture=compute_" + arch.substr(3);
    const char *options[] = {archOption.c_str()};
    ToolResult result;
    result.ok = compileFn(program, 1, options) == NVRTC_SUCCESS;
    size_t size = 0;
    if (logSize(program, &size) == NVRTC_SUCCESS && size > 1) {
      result.log.resize(size);
      logFn(program, result.log.data());
      result.log.resize(std::strlen(result.log.c_str()));
    }
    if (result.ok && ptxSize(program, &size) == NVRTC_SUCCESS) {
      result.output.resize(size);
      result.ok = ptx(program, result.output.data()) == NVRTC_SUCCESS;
      result.output.resize(std::strlen(result.output.c_str()));
    }
    destroy(&program);
    return result;
  }

private:
  Nvrtc() = default;
  nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                        const char *const *) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram *) = nullptr;
  nvrtcResult (*compileFn)(nvrtcProgram, int, const char *const *) = nullptr;
  nvrtcResult (*logSize)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*logFn)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*ptxSize)(nvrtcProgram, size_t *) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char *) = nullptr;
  std::string versionText;
};

#endif // WIRC_HAVE_CUDA_COMPILER

#ifdef WIRC_HAVE_LLVM_NVPTX

/// Redirects file descriptor 2 to a temporary file until finish().
class StderrCapture {
public:
  StderrCapture() {
    std::fflush(stderr);
    FILE *file = std::tmpfile();
    saved = ::dup(STDERR_FILENO);
    if (file && saved >= 0 && ::dup2(::fileno(file), STDERR_FILENO) >= 0)
      sink = file;
    else if (file)
      std::fclose(file);
  }
  ~StderrCapture() { finish(); }
  std::string finish() {
    std::string text;
    if (!sink)
      return text;
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::rewind(sink);
    char chunk[4096];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, sink)) > 0;)
      text.append(chunk, n);
    std::fclose(sink);
    sink = nullptr;
    return text;
  }

private:
  FILE *sink = nullptr;
  int saved = -1;
};

/// LLVM 14 through its C API, which is stable enough to bind by name.
class Llvm final : public LlvmBackend {
public:
  static std::unique_ptr<Llvm> load(std::string &error) {
    fs::path library(WIRC_LLVM_LIBRARY);
    void *handle = openLibrary(library.parent_path(), {library.filename().c_str()}, error);
    if (!handle)
      return nullptr;
    auto self = std::unique_ptr<Llvm>(new Llvm);
    void (*initInfo)() = nullptr, (*initTarget)() = nullptr, (*initMC)() = nullptr,
         (*initPrinter)() = nullptr;
#define WIRC_BIND(field, name)                                                                   \
  if (!bind(handle, name, self->field, error))                                                   \
    return nullptr;
    WIRC_BIND(contextCreate, "LLVMContextCreate")
    WIRC_BIND(contextDispose, "LLVMContextDispose")
    WIRC_BIND(bufferCopy, "LLVMCreateMemoryBufferWithMemoryRangeCopy")
    WIRC_BIND(parseIR, "LLVMParseIRInContext")
    WIRC_BIND(disposeModule, "LLVMDisposeModule")
    WIRC_BIND(getTarget, "LLVMGetTarget")
    WIRC_BIND(setTarget, "LLVMSetTarget")
    WIRC_BIND(verify, "LLVMVerifyModule")
    WIRC_BIND(targetFromTriple, "LLVMGetTargetFromTriple")
    WIRC_BIND(createMachine, "LLVMCreateTargetMachine")
    WIRC_BIND(disposeMachine, "LLVMDisposeTargetMachine")
    WIRC_BIND(createLayout, "LLVMCreateTargetDataLayout")
    WIRC_BIND(setLayout, "LLVMSetModuleDataLayout")
    WIRC_BIND(disposeLayout, "LLVMDisposeTargetData")
    WIRC_BIND(emit, "LLVMTargetMachineEmitToMemoryBuffer")
    WIRC_BIND(bufferStart, "LLVMGetBufferStart")
    WIRC_BIND(bufferSize, "LLVMGetBufferSize")
    WIRC_BIND(disposeBuffer, "LLVMDisposeMemoryBuffer")
    WIRC_BIND(disposeMessage, "LLVMDisposeMessage")
#undef WIRC_BIND
    if (!bind(handle, "LLVMInitializeNVPTXTargetInfo", initInfo, error) ||
        !bind(handle, "LLVMInitializeNVPTXTarget", initTarget, error) ||
        !bind(handle, "LLVMInitializeNVPTXTargetMC", initMC, error) ||
        !bind(handle, "LLVMInitializeNVPTXAsmPrinter", initPrinter, error))
      return nullptr;
    static std::once_flag initialized;
    std::call_once(initialized, [&] {
      initInfo();
      initTarget();
      initMC();
      initPrinter();
    });
    self->versionText = "LLVM " WIRC_LLVM_VERSION;
    return self;
  }

  const std::string &version() const override { return versionText; }

  ToolResult compile(const std::string &name, std::string_view ir,
                     const std::string &arch) const override {
    static constexpr const char *kTriple = "nvptx64-nvidia-cuda";
    ToolResult result;
    char *message = nullptr;
    auto takeMessage = [&] {
      std::string text = message ? message : "";
      if (message)
        disposeMessage(message);
      message = nullptr;
      while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
      return text;
    };
    LLVMContextRef context = contextCreate();
    LLVMMemoryBufferRef buffer = bufferCopy(ir.data(), ir.size(), (name + ".ll").c_str());
    LLVMModuleRef module = nullptr;
    // The parser takes the buffer, on success and on failure. Its warnings
    // go straight to stderr (the C API has no hook for them); capture them
    // into the log instead.
    std::string warnings;
    LLVMBool failed;
    {
      static std::mutex parseMutex;
      std::lock_guard<std::mutex> lock(parseMutex);
      StderrCapture capture;
      failed = parseIR(context, buffer, &module, &message);
      warnings = capture.finish();
    }
    if (failed) {
      result.summary = fmt::format("{} cannot read the IR of kernel '{}' (IR of a newer LLVM, "
                                   "such as opaque 'ptr' pointers, is not LLVM 14 IR)",
                                   versionText, name);
      result.log = warnings + takeMessage();
      contextDispose(context);
      return result;
    }
    result.log = warnings;
    std::string triple = getTarget(module);
    LLVMTargetRef target = nullptr;
    if (!triple.empty() && !triple.starts_with("nvptx")) {
      result.log = fmt::format("the IR targets '{}'; expected an NVPTX triple ({})", triple,
                               kTriple);
    } else {
      if (triple.empty()) {
        triple = kTriple;
        setTarget(module, kTriple);
      }
      if (verify(module, LLVMReturnStatusAction, &message)) {
        result.log = fmt::format("the IR is invalid: {}", takeMessage());
      } else if (takeMessage(), targetFromTriple(triple.c_str(), &target, &message)) {
        result.log = takeMessage();
      } else {
        LLVMTargetMachineRef machine =
            createMachine(target, triple.c_str(), llvmProcessorFor(arch).c_str(), "",
                          LLVMCodeGenLevelDefault, LLVMRelocDefault, LLVMCodeModelDefault);
        LLVMTargetDataRef layout = createLayout(machine);
        setLayout(module, layout);
        LLVMMemoryBufferRef out = nullptr;
        if (emit(machine, module, LLVMAssemblyFile, &message, &out)) {
          result.log = takeMessage();
        } else {
          result.ok = true;
          result.output.assign(bufferStart(out), bufferSize(out));
          disposeBuffer(out);
        }
        disposeLayout(layout);
        disposeMachine(machine);
      }
    }
    takeMessage();
    disposeModule(module);
    contextDispose(context);
    return result;
  }

private:
  Llvm() = default;
  LLVMContextRef (*contextCreate)() = nullptr;
  void (*contextDispose)(LLVMContextRef) = nullptr;
  LLVMMemoryBufferRef (*bufferCopy)(const char *, size_t, const char *) = nullptr;
  LLVMBool (*parseIR)(LLVMContextRef, LLVMMemoryBufferRef, LLVMModuleRef *, char **) = nullptr;
  void (*disposeModule)(LLVMModuleRef) = nullptr;
  const char *(*getTarget)(LLVMModuleRef) = nullptr;
  void (*setTarget)(LLVMModuleRef, const char *) = nullptr;
  LLVMBool (*verify)(LLVMModuleRef, LLVMVerifierFailureAction, char **) = nullptr;
  LLVMBool (*targetFromTriple)(const char *, LLVMTargetRef *, char **) = nullptr;
  LLVMTargetMachineRef (*createMachine)(LLVMTargetRef, const char *, const char *, const char *,
                                        LLVMCodeGenOptLevel, LLVMRelocMode,
                                        LLVMCodeModel) = nullptr;
  void (*disposeMachine)(LLVMTargetMachineRef) = nullptr;
  LLVMTargetDataRef (*createLayout)(LLVMTargetMachineRef) = nullptr;
  void (*setLayout)(LLVMModuleRef, LLVMTargetDataRef) = nullptr;
  void (*disposeLayout)(LLVMTargetDataRef) = nullptr;
  LLVMBool (*emit)(LLVMTargetMachineRef, LLVMModuleRef, LLVMCodeGenFileType, char **,
                   LLVMMemoryBufferRef *) = nullptr;
  const char *(*bufferStart)(LLVMMemoryBufferRef) = nullptr;
  size_t (*bufferSize)(LLVMMemoryBufferRef) = nullptr;
  void (*disposeBuffer)(LLVMMemoryBufferRef) = nullptr;
  void (*disposeMessage)(char *) = nullptr;
  std::string versionText;
};

#endif // WIRC_HAVE_LLVM_NVPTX

} // namespace

std::string ptxAssemblerFile(const std::string &root) {
#ifdef WIRC_HAVE_CUDA_COMPILER
  if (std::string library = findLibrary(fs::path(root) / "lib64", kNvJitLinkNames);
      !library.empty())
    return library;
#endif
  return findPtxas(root);
}

std::string cudaFrontendFile(const std::string &root) {
#ifdef WIRC_HAVE_CUDA_COMPILER
  return findLibrary(fs::path(root) / "lib64", kNvrtcNames);
#else
  (void)root;
  return {};
#endif
}

std::string llvmVersion(std::string &error) {
#ifdef WIRC_HAVE_LLVM_NVPTX
  (void)error;
  return "LLVM " WIRC_LLVM_VERSION;
#else
  error = "this wirc was built without LLVM 14; LLVM IR kernels need its NVPTX backend";
  return {};
#endif
}

std::string llvmProcessorFor(const std::string &arch) {
  // The NVPTX processors LLVM 14 knows; a newer GPU gets the newest of them
  // that is not newer than it, and runs its PTX.
  static constexpr int kKnown[] = {20, 21, 30, 32, 35, 37, 50, 52, 53,
                                   60, 61, 62, 70, 72, 75, 80, 86};
  int wanted = std::atoi(arch.c_str() + 3);
  int best = kKnown[0];
  for (int sm : kKnown)
    if (sm <= wanted)
      best = sm;
  return fmt::format("sm_{}", best);
}

std::unique_ptr<PtxAssembler> loadPtxAssembler(const std::string &root, std::string &error) {
  std::string nvJitLinkError = "this wirc was built without the CUDA toolkit's headers";
#ifdef WIRC_HAVE_CUDA_COMPILER
  if (auto linker = NvJitLink::load(root, nvJitLinkError))
    return linker;
#endif
  std::string ptxas = findPtxas(root);
  if (ptxas.empty()) {
    error = fmt::format("no PTX assembler: nvJitLink is unavailable ({}) and no ptxas was found "
                        "in '{}/bin' or PATH",
                        nvJitLinkError, root);
    return nullptr;
  }
  TempDir dir;
  std::string log;
  if (dir.path.empty() || runProgram({ptxas, "--version"}, dir.path / "log", log) != 0) {
    error = fmt::format("no PTX assembler: nvJitLink is unavailable ({}) and '{}' --version "
                        "failed",
                        nvJitLinkError, ptxas);
    return nullptr;
  }
  // The version is on the line "Cuda compilation tools, release 13.0, V13.0.88";
  // without one, the whole output stands for it in cache keys.
  std::string version = log;
  if (size_t v = log.find(", V"); v != std::string::npos)
    version = log.substr(v + 3, log.find('\n', v) - (v + 3));
  return std::make_unique<Ptxas>(ptxas, "ptxas " + version);
}

std::unique_ptr<CudaFrontend> loadCudaFrontend(const std::string &root, std::string &error) {
#ifdef WIRC_HAVE_CUDA_COMPILER
  std::string why;
  if (auto nvrtc = Nvrtc::load(root, why))
    return nvrtc;
  error = "NVRTC is unavailable: " + why;
#else
  (void)root;
  error = "this wirc was built without the CUDA toolkit's headers; CUDA C++ kernels need NVRTC";
#endif
  return nullptr;
}

std::unique_ptr<LlvmBackend> loadLlvmBackend(std::string &error) {
#ifdef WIRC_HAVE_LLVM_NVPTX
  std::string why;
  if (auto llvm = Llvm::load(why))
    return llvm;
  error = "LLVM " WIRC_LLVM_VERSION " is unavailable: " + why;
#else
  error = "this wirc was built without LLVM 14; LLVM IR kernels need its NVPTX backend";
#endif
  return nullptr;
}

} // namespace wirc::cuda::detail
