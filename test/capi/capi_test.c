/* A C program on libwirc-c (include/wirc-c/wirc.h): it checks the API's
 * contract and writes what a compile produced, for the lit tests in
 * test/lit/capi to compare with the executable's output.
 *
 * usage: wirc-capi-test GRAPH EMIT OUT_FILE
 */
#include "wirc-c/wirc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
      ++failures;                                                                       \
    }                                                                                   \
  } while (0)

static const char *graph;
static const char *emit;

/* A compile of GRAPH to standard output; the caller frees the result. */
static wirc_result *compileGraph(void) {
  char flag[64];
  snprintf(flag, sizeof flag, "--emit=%s", emit);
  const char *argv[] = {"wirc", "compile", graph, flag};
  return wirc_run(4, argv);
}

static char *copyStdout(const wirc_result *result, size_t *size) {
  const char *text = wirc_result_stdout(result, size);
  char *copy = malloc(*size + 1);
  memcpy(copy, text, *size + 1);
  return copy;
}

static size_t expectedSize;
static const char *expectedText;

/* Even threads compile GRAPH, odd ones a missing file: each result holds its
 * own run's output and diagnostics, nothing of the others'. */
struct ThreadTask {
  int index;
  int ok;
};

static void *compileOnThread(void *arg) {
  struct ThreadTask *task = arg;
  for (int round = 0; round < 4; ++round) {
    if (task->index % 2 == 0) {
      wirc_result *result = compileGraph();
      size_t size = 0;
      const char *text = wirc_result_stdout(result, &size);
      task->ok = wirc_result_exit_code(result) == 0 && size == expectedSize &&
                 memcmp(text, expectedText, size) == 0 &&
                 wirc_result_stderr(result, NULL)[0] == '\0';
      wirc_result_free(result);
    } else {
      const char *args[] = {"wirc", "compile", "no/such/graph.json", "--emit=python"};
      wirc_result *result = wirc_run(4, args);
      const char *err = wirc_result_stderr(result, NULL);
      const char *expected =
          "wirc: error: cannot open 'no/such/graph.json': No such file or directory\n";
      task->ok = wirc_result_exit_code(result) == 1 && strcmp(err, expected) == 0 &&
                 wirc_result_stdout(result, NULL)[0] == '\0';
      wirc_result_free(result);
    }
    if (!task->ok)
      break;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s GRAPH EMIT OUT_FILE\n", argv[0]);
    return 2;
  }
  graph = argv[1];
  emit = argv[2];

  CHECK(wirc_c_api_version() == WIRC_C_API_VERSION);
  CHECK(strncmp(wirc_version(), "wirc ", 5) == 0);

  /* --version prints what wirc_version() returns. */
  {
    const char *args[] = {"wirc", "--version"};
    wirc_result *result = wirc_run(2, args);
    size_t size = 0;
    const char *text = wirc_result_stdout(result, &size);
    CHECK(wirc_result_exit_code(result) == 0);
    CHECK(size == strlen(wirc_version()) + 1 && strncmp(text, wirc_version(), size - 1) == 0);
    wirc_result_free(result);
  }

  /* A compile: the module on standard output, nothing on standard error,
   * the size without the terminating NUL. */
  wirc_result *first = compileGraph();
  size_t size = 0;
  CHECK(wirc_result_exit_code(first) == 0);
  char *text = copyStdout(first, &size);
  CHECK(size > 0 && text[size] == '\0' && strlen(text) == size);
  size_t errSize = 1;
  CHECK(wirc_result_stderr(first, &errSize)[0] == '\0' && errSize == 0);
  CHECK(wirc_result_stdout(first, NULL) == wirc_result_stdout(first, &errSize));
  wirc_result_free(first);

  /* A run with other flags in between: a later run sees none of them (runs
   * reuse the command-line parser). */
  {
    const char *args[] = {"wirc",         "compile",        graph,        "--emit=fx-module",
                          "--print-ir",   "--memory-plan=none", "--no-size-asserts",
                          "--time-passes", "-j1"};
    wirc_result *result = wirc_run(9, args);
    CHECK(wirc_result_exit_code(result) == 0);
    CHECK(strstr(wirc_result_stderr(result, NULL), "pass execution timing report") != NULL);
    wirc_result_free(result);
  }

  /* A second compile in the same process gives the same bytes. */
  {
    wirc_result *again = compileGraph();
    size_t againSize = 0;
    const char *againText = wirc_result_stdout(again, &againSize);
    CHECK(againSize == size && memcmp(againText, text, size) == 0);
    CHECK(wirc_result_stderr(again, NULL)[0] == '\0');
    wirc_result_free(again);
  }

  /* Six threads at once, compiling and failing. */
  {
    expectedText = text;
    expectedSize = size;
    pthread_t threads[6];
    struct ThreadTask tasks[6];
    for (int i = 0; i < 6; ++i) {
      tasks[i].index = i;
      tasks[i].ok = 0;
      CHECK(pthread_create(&threads[i], NULL, compileOnThread, &tasks[i]) == 0);
    }
    for (int i = 0; i < 6; ++i) {
      pthread_join(threads[i], NULL);
      CHECK(tasks[i].ok);
    }
  }

  /* A missing input: exit code 1, the diagnostic on standard error. */
  {
    const char *args[] = {"wirc", "compile", "no/such/graph.json"};
    wirc_result *result = wirc_run(3, args);
    CHECK(wirc_result_exit_code(result) == 1);
    CHECK(strstr(wirc_result_stderr(result, NULL), "wirc: error: cannot open") != NULL);
    CHECK(wirc_result_stdout(result, NULL)[0] == '\0');
    wirc_result_free(result);
  }

  /* A bad flag is a usage error (2); so is a call without arguments. */
  {
    const char *args[] = {"wirc", "compile", graph, "--no-such-flag"};
    wirc_result *result = wirc_run(4, args);
    CHECK(wirc_result_exit_code(result) == 2);
    CHECK(strstr(wirc_result_stderr(result, NULL), "--no-such-flag") != NULL);
    wirc_result_free(result);
    result = wirc_run(0, NULL);
    CHECK(wirc_result_exit_code(result) == 2);
    wirc_result_free(result);
    const char *withNull[] = {"wirc", "compile", NULL};
    result = wirc_run(3, withNull);
    CHECK(wirc_result_exit_code(result) == 2);
    CHECK(strcmp(wirc_result_stderr(result, NULL), "wirc: error: argument 2 is NULL\n") == 0);
    wirc_result_free(result);
  }

  /* Reports go to the result's standard error, the module still to its
   * standard output. */
  {
    char flag[64];
    snprintf(flag, sizeof flag, "--emit=%s", emit);
    const char *args[] = {"wirc", "compile", graph, flag, "--time-passes"};
    wirc_result *result = wirc_run(5, args);
    CHECK(wirc_result_exit_code(result) == 0);
    CHECK(strstr(wirc_result_stderr(result, NULL), "pass execution timing report") != NULL);
    CHECK(strcmp(wirc_result_stdout(result, NULL), text) == 0);
    wirc_result_free(result);
  }

  wirc_result_free(NULL);

  FILE *out = fopen(argv[3], "wb");
  CHECK(out != NULL);
  if (out) {
    CHECK(fwrite(text, 1, size, out) == size);
    CHECK(fclose(out) == 0);
  }
  free(text);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
