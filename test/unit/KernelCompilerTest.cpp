//===- KernelCompilerTest.cpp - Hashes, cache keys, kernel compilation ----===//
#include "wirc/cuda/ContentHash.h"
#include "wirc/cuda/KernelCompiler.h"
#include "wirc/driver/Manifest.h"
#include "wirc/support/Base64.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace wirc;
using namespace wirc::cuda;

namespace {

std::string randomBytes(std::mt19937 &rng, size_t size) {
  std::string s(size, '\0');
  for (char &c : s)
    c = static_cast<char>(rng() & 0xFF);
  return s;
}

/// The add_relu PTX kernel of samples/cpp/add-relu-ptx.json.
std::string samplePtx() {
  std::ifstream in(std::string(WIRC_SOURCE_DIR) + "/samples/cpp/add-relu-ptx.json");
  return nlohmann::json::parse(in)["kernels"][0]["source"].get<std::string>();
}

/// Whether this machine can assemble PTX in process.
bool haveNvJitLink() {
  const char *root = std::getenv("CUDA_HOME");
  std::string lib = std::string(root && *root ? root : "/usr/local/cuda") + "/lib64/libnvJitLink.so";
  return compilerBuiltIn() && std::filesystem::exists(lib);
}

std::filesystem::path freshDir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("wirc-unit-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

} // namespace

TEST_CASE("SHA-256 of the FIPS 180-2 examples", "[cuda][hash]") {
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 is the same however the message is split", "[cuda][hash][property]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string message = randomBytes(rng, rng() % 300);
    Sha256 pieces;
    for (size_t at = 0; at < message.size();) {
      size_t n = std::min<size_t>(rng() % 70, message.size() - at);
      pieces.update(std::string_view(message).substr(at, n));
      at += n;
    }
    REQUIRE(pieces.hexDigest() == sha256Hex(message));
  }
}

TEST_CASE("fields cannot run into each other in a key", "[cuda][hash]") {
  Sha256 a, b;
  a.field("ab");
  a.field("c");
  b.field("a");
  b.field("bc");
  CHECK(a.hexDigest() != b.hexDigest());
}

TEST_CASE("base64 of the RFC 4648 examples, and back", "[cuda][base64][property]") {
  const std::pair<const char *, const char *> examples[] = {
      {"", ""},         {"f", "Zg=="},        {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : examples) {
    CHECK(encodeBase64(plain) == encoded);
    CHECK(decodeBase64(encoded) == plain);
  }
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes = randomBytes(rng, rng() % 100);
    REQUIRE(decodeBase64(encodeBase64(bytes)) == bytes);
  }
}

TEST_CASE("CUDA architecture names", "[cuda]") {
  for (const char *good : {"sm_50", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120a"})
    CHECK(checkArch(good).empty());
  for (const char *bad : {"", "sm_", "sm_9", "sm_090", "sm_1000", "sm_90b", "compute_90", "SM_90",
                          "sm_9x", "sm_90aa"})
    CHECK_FALSE(checkArch(bad).empty());
}

TEST_CASE("the default cache directory follows XDG", "[cuda]") {
  // Synthetic roots: nothing is created, only the paths are compared.
  auto saved = [](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  auto restore = [](const char *name, const std::optional<std::string> &value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  };
  const std::optional<std::string> savedXdg = saved("XDG_CACHE_HOME"), savedHome = saved("HOME");
  ::setenv("XDG_CACHE_HOME", "/xdg-cache-root", 1);
  CHECK(defaultCacheDir() == "/xdg-cache-root/wirc");
  // A relative XDG_CACHE_HOME is invalid and ignored.
  ::setenv("XDG_CACHE_HOME", "relative", 1);
  ::setenv("HOME", "/home-root", 1);
  CHECK(defaultCacheDir() == "/home-root/.cache/wirc");
  restore("XDG_CACHE_HOME", savedXdg);
  restore("HOME", savedHome);
}

TEST_CASE("no jobs need no toolkit; a bad architecture compiles nothing", "[cuda]") {
  CompilerOptions options;
  options.cudaRoot = "/nonexistent";
  CHECK(compileKernels({}, options).ok());
  options.arch = "sm_9";
  KernelJob job{"k", SourceKind::PTX, samplePtx(), "add_relu"};
  CompileResult result = compileKernels({&job, 1}, options);
  CHECK_FALSE(result.ok());
  CHECK(result.setupError.find("invalid CUDA architecture 'sm_9'") != std::string::npos);
  CHECK(result.kernels.empty());
}

TEST_CASE("PTX compiles once, then comes from the cache", "[cuda][toolkit]") {
  if (!haveNvJitLink()) {
    WARN("nvJitLink is not available; skipped");
    return;
  }
  std::filesystem::path dir = freshDir("cache");
  CompilerOptions options;
  options.cacheDir = dir.string();
  std::vector<KernelJob> jobs;
  std::string ptx = samplePtx();
  for (int i = 0; i < 6; ++i) {
    // Distinct sources: a comment changes the key, not the code.
    jobs.push_back({"k" + std::to_string(i), SourceKind::PTX,
                    ptx + "// variant " + std::to_string(i) + "\n", "add_relu"});
  }
  options.threads = 3;
  CompileResult cold = compileKernels(jobs, options);
  REQUIRE(cold.ok());
  CHECK(cold.compiled == 6);
  CHECK(cold.cached == 0);
  options.threads = 1;
  CompileResult warm = compileKernels(jobs, options);
  REQUIRE(warm.ok());
  CHECK(warm.compiled == 0);
  CHECK(warm.cached == 6);
  for (size_t i = 0; i < jobs.size(); ++i) {
    CHECK(cold.kernels[i].key.size() == 64);
    CHECK(warm.kernels[i].key == cold.kernels[i].key);
    CHECK(warm.kernels[i].cubin == cold.kernels[i].cubin);
    CHECK(warm.kernels[i].ptx == jobs[i].source);
    CHECK(cold.kernels[i].cubin.substr(0, 4) == "\x7f" "ELF");
  }
  // Every key is distinct, and another architecture is another key.
  std::set<std::string> keys;
  for (const CompiledKernel &k : cold.kernels)
    keys.insert(k.key);
  CHECK(keys.size() == 6);
  options.arch = "sm_90a";
  CompileResult other = compileKernels({jobs.data(), 1}, options);
  REQUIRE(other.ok());
  CHECK(other.compiled == 1);
  CHECK(keys.count(other.kernels[0].key) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("results are in job order whatever the thread count", "[cuda][toolkit][property]") {
  if (!haveNvJitLink()) {
    WARN("nvJitLink is not available; skipped");
    return;
  }
  std::string ptx = samplePtx();
  std::vector<KernelJob> jobs;
  for (int i = 0; i < 8; ++i) {
    std::string source = ptx;
    // Half the kernels are broken, at a different line each.
    if (i % 2)
      source.insert(source.find("ret;"), std::string(i, '\n') + "bogus.instruction;\n");
    jobs.push_back({"k" + std::to_string(i), SourceKind::PTX, source, "add_relu"});
  }
  CompilerOptions options;
  std::vector<std::string> reference;
  for (unsigned threads : {1u, 2u, 5u, 8u}) {
    options.threads = threads;
    CompileResult result = compileKernels(jobs, options);
    std::vector<std::string> summary;
    for (const KernelError &e : result.errors)
      summary.push_back(std::to_string(e.job) + ": " + e.message + "\n" + e.log);
    CHECK(result.errors.size() == 4);
    if (reference.empty())
      reference = summary;
    CHECK(summary == reference);
  }
  REQUIRE(reference.size() == 4);
  CHECK(reference[0].starts_with("1: "));
  CHECK(reference[3].starts_with("7: "));
}

TEST_CASE("an entry point the PTX does not define is an error", "[cuda][toolkit]") {
  if (!haveNvJitLink()) {
    WARN("nvJitLink is not available; skipped");
    return;
  }
  KernelJob job{"renamed", SourceKind::PTX, samplePtx(), "add_relu_"};
  CompileResult result = compileKernels({&job, 1}, CompilerOptions{});
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].message == "the PTX of ptx kernel 'renamed' defines no entry point 'add_relu_'");
}

TEST_CASE("an output directory replaces only what wirc wrote", "[driver][manifest]") {
  std::filesystem::path dir = freshDir("outdir");
  OutputFiles files = {{"a.cpp", "int a;\n"}, {"kernels/k.cubin", std::string("\0\1", 2)},
                       {"manifest.json", "{\n  \"format\": \"wirc.manifest\"\n}\n"}};
  std::string out = (dir / "out").string();
  REQUIRE(writeOutputDirectory(out + "/", files).empty());
  std::ifstream in(dir / "out" / "kernels" / "k.cubin", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  CHECK(bytes.str() == std::string("\0\1", 2));
  // A second write replaces the directory as a whole: stale files go.
  std::ofstream(dir / "out" / "stale.txt") << "old";
  files[0].second = "int b;\n";
  REQUIRE(writeOutputDirectory(out, files).empty());
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "stale.txt"));
  // No temporary directory is left next to it.
  size_t entries = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++entries;
  }
  CHECK(entries == 1);
  // A directory wirc did not write is never replaced.
  std::filesystem::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "precious";
  CHECK(writeOutputDirectory((dir / "mine").string(), files).find("refusing to replace") == 0);
  CHECK(std::filesystem::exists(dir / "mine" / "notes.txt"));
  CHECK(writeOutputDirectory(".", files).find("cannot use '.'") == 0);
  std::filesystem::remove_all(dir);
}
