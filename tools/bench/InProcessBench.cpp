//===- InProcessBench.cpp - wirc compiles inside the caller's process ----===//
//
// wirc-inprocess-bench GRAPH [ARGS...]: runs `wirc compile GRAPH ARGS...`
// through libwirc-c, as an exporter or backend does, several times in one
// process, and prints each of the first calls' time and page faults and the
// best and median of the rest. The library uses the process's malloc
// (glibc's here), not the jemalloc the executable links. WIRC_BENCH_WARMUP=G
// compiles graph G once first, so that the first call's page faults are the
// graph's own and not the library's code being paged in.
//
//===----------------------------------------------------------------------===//
#include "wirc-c/wirc.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace {
long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s GRAPH [WIRC-COMPILE-ARGS...] "
                 "(WIRC_BENCH_REPEAT=N, WIRC_BENCH_WARMUP=G)\n",
                 argv[0]);
    return 2;
  }
  std::vector<const char *> args = {"wirc", "compile", argv[1]};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  bool hasOutput = false;
  for (const char *a : args)
    hasOutput |= std::string(a) == "-o" || std::string(a).rfind("--output", 0) == 0;
  if (!hasOutput) {
    args.push_back("-o");
    args.push_back("-");
  }
  int repeat = 41;
  if (const char *r = std::getenv("WIRC_BENCH_REPEAT"))
    repeat = std::max(2, std::atoi(r));
  std::vector<double> rest;
  if (const char *w = std::getenv("WIRC_BENCH_WARMUP")) {
    std::vector<const char *> wa = {"wirc", "compile", w, "--emit=python", "-o", "-"};
    long f0 = minorFaults();
    wirc_result_free(wirc_run(static_cast<int>(wa.size()), wa.data()));
    std::printf("warmup: %ld page faults\n", minorFaults() - f0);
  }
  for (int i = 0; i < repeat; ++i) {
    long faults = minorFaults();
    auto start = std::chrono::steady_clock::now();
    wirc_result *result = wirc_run(static_cast<int>(args.size()), args.data());
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    faults = minorFaults() - faults;
    int code = result ? wirc_result_exit_code(result) : -1;
    if (code != 0) {
      size_t n = 0;
      const char *err = result ? wirc_result_stderr(result, &n) : "no result\n";
      std::fprintf(stderr, "wirc exited with %d:\n%s", code, err);
      wirc_result_free(result);
      return 1;
    }
    wirc_result_free(result);
    if (i < 3)
      std::printf("call %d: %.3f ms, %ld page faults\n", i + 1, ms, faults);
    if (i > 0)
      rest.push_back(ms);
  }
  std::sort(rest.begin(), rest.end());
  std::printf("calls 2-%d: best %.3f ms, median %.3f ms\n", repeat, rest.front(),
              rest[rest.size() / 2]);
  return 0;
}
