// The installed libwirc-c (wirc::c) from another project: compiles a graph in
// this process and prints what `wirc compile GRAPH --emit=fx` would.
#include "wirc-c/wirc.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: capi-user GRAPH\n");
    return 2;
  }
  const char *args[] = {"wirc", "compile", argv[1], "--emit=fx"};
  wirc_result *result = wirc_run(4, args);
  size_t size = 0;
  const char *text = wirc_result_stdout(result, &size);
  std::fwrite(text, 1, size, stdout);
  std::fputs(wirc_result_stderr(result, nullptr), stderr);
  int code = wirc_result_exit_code(result);
  wirc_result_free(result);
  return code;
}
