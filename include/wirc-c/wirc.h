/*===- wirc-c/wirc.h - The wirc command line as a C library ---------------===*\
|*                                                                            *|
|* libwirc-c runs the `wirc` command line inside the calling process, with    *|
|* what it would write to standard output and standard error returned in      *|
|* memory. A program that compiles graphs as it goes (an Inductor backend, a  *|
|* Python exporter through ctypes) saves starting a process per graph.        *|
|*                                                                            *|
|* The arguments, outputs, exit codes and files written are those of the      *|
|* executable (docs/cli.md). Calls may come from any thread, and run at the   *|
|* same time when they do; each call's output is its own.                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef WIRC_C_WIRC_H
#define WIRC_C_WIRC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WIRC_C_EXPORT __attribute__((visibility("default")))
#else
#define WIRC_C_EXPORT
#endif

/* The version of this interface; it grows when functions are added. */
#define WIRC_C_API_VERSION 1

typedef struct wirc_result wirc_result;

/* Runs `wirc` with argv[0..argc) (argv[0] is the program name, used in
 * --help). For example {"wirc", "compile", "graph.json", "--emit=python"}
 * leaves the emitted module in the result's standard output. argc < 1 or a
 * NULL argv runs `wirc` without arguments; a NULL among argv[0..argc) is a
 * usage error (exit code 2). Returns NULL only if the result itself cannot
 * be allocated. */
WIRC_C_EXPORT wirc_result *wirc_run(int argc, const char *const *argv);

/* The exit code the executable would have returned: 0 on success, else one
 * of the codes of docs/cli.md. */
WIRC_C_EXPORT int wirc_result_exit_code(const wirc_result *result);

/* What the executable would have written to standard output, and to
 * standard error (diagnostics, logs, timing reports). Each is NUL-terminated
 * as well; *size, if size is not NULL, receives its length without the NUL.
 * Valid until wirc_result_free. */
WIRC_C_EXPORT const char *wirc_result_stdout(const wirc_result *result, size_t *size);
WIRC_C_EXPORT const char *wirc_result_stderr(const wirc_result *result, size_t *size);

/* Frees a result; NULL is ignored. */
WIRC_C_EXPORT void wirc_result_free(wirc_result *result);

/* "wirc X.Y.Z", as `wirc --version` prints it. */
WIRC_C_EXPORT const char *wirc_version(void);

/* WIRC_C_API_VERSION of the library that is loaded. */
WIRC_C_EXPORT int wirc_c_api_version(void);

#ifdef __cplusplus
}
#endif

#endif /* WIRC_C_WIRC_H */
