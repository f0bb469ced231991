//===- CApi.cpp - libwirc-c: the command line as a C library --------------===//
//
// The functions of include/wirc-c/wirc.h over runDriver. Nothing may escape
// as an exception: a C caller cannot catch it.
//
//===----------------------------------------------------------------------===//
#include "wirc-c/wirc.h"

#include "Driver.h"

#include "wirc/driver/Compiler.h"

#include <new>
#include <string>

struct wirc_result {
  int exitCode = 0;
  std::string out;
  std::string err;
};

namespace {

const char *text(const std::string &s, size_t *size) {
  if (size)
    *size = s.size();
  return s.c_str();
}

} // namespace

extern "C" {

wirc_result *wirc_run(int argc, const char *const *argv) {
  auto *result = new (std::nothrow) wirc_result;
  if (!result)
    return nullptr;
  try {
    const char *const fallback[] = {"wirc", nullptr};
    if (argc < 1 || !argv) {
      argc = 1;
      argv = fallback;
    }
    for (int i = 0; i < argc; ++i)
      if (!argv[i]) {
        result->exitCode = static_cast<int>(wirc::ExitCode::UsageError);
        result->err = "wirc: error: argument " + std::to_string(i) + " is NULL\n";
        return result;
      }
    wirc::driver::DriverIO io;
    // The emitted text is most of a result: the first piece is taken over.
    io.out = [result](std::string chunk) {
      if (result->out.empty())
        result->out = std::move(chunk);
      else
        result->out += chunk;
    };
    io.err = [result](std::string_view chunk) { result->err.append(chunk); };
    result->exitCode = wirc::driver::runDriver(argc, argv, io);
  } catch (...) {
    // Only allocation can fail here: runDriver catches everything else.
    result->exitCode = static_cast<int>(wirc::ExitCode::OutOfMemory);
    result->err = "wirc: error: out of memory\n";
  }
  return result;
}

int wirc_result_exit_code(const wirc_result *result) { return result->exitCode; }

const char *wirc_result_stdout(const wirc_result *result, size_t *size) {
  return text(result->out, size);
}

const char *wirc_result_stderr(const wirc_result *result, size_t *size) {
  return text(result->err, size);
}

void wirc_result_free(wirc_result *result) { delete result; }

const char *wirc_version(void) {
  static const std::string version = wirc::versionString();
  return version.c_str();
}

int wirc_c_api_version(void) { return WIRC_C_API_VERSION; }

} // extern "C"
