# lit configuration for wirc's golden tests.
import os
import subprocess

import lit.formats

config.name = "wirc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)


config.environment["PATH"] = os.pathsep.join(
    [config.wirc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
# Diagnostics and output must not depend on the user's locale or terminal.
config.environment["LC_ALL"] = "C"

config.substitutions.append(("%wirc", os.path.join(config.wirc_tools_dir, "wirc")))
config.substitutions.append(("%samples", os.path.join(config.wirc_source_root, "samples")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%not", config.not_tool))
config.substitutions.append(
    ("%expect-exit", config.python_executable + " " + os.path.join(config.test_source_root, "expect_exit.py")))

# Sanitizer builds reserve terabytes of address space, so tests that cap the
# address space cannot run there.
if "-fsanitize=address" not in getattr(config, "cxx_flags", ""):
    config.available_features.add("address-space-limit")
    # A sanitized libwirc-c needs its runtime loaded first, which Python
    # does not do.
    config.available_features.add("python-loads-library")

# The driver links jemalloc unless configured otherwise (sanitizer builds);
# its huge-page setting depends on the cores this process may run on.
if getattr(config, "wirc_allocator", "") == "jemalloc":
    config.available_features.add("jemalloc")
cpus = os.sched_getaffinity(0)
config.substitutions.append(("%cores", "EIGHT-CORES" if len(cpus) >= 8 else "FEWER-CORES"))
config.substitutions.append(("%one-cpu", str(min(cpus))))

# The exporter's sympy-only helpers are tested where the Python that runs
# the tests has sympy (torch brings it on the GPU machine).
if subprocess.run([config.python_executable, "-c", "import sympy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("sympy")

# libwirc-c (include/wirc-c/wirc.h), its C test program, and the Python
# binding of tools/exporter/wirc_export/native.py.
config.substitutions.append(("%libwirc_c", config.wirc_library))
config.substitutions.append(("%capi-test", config.capi_test))
config.substitutions.append(("%exporter", os.path.join(config.wirc_source_root, "tools", "exporter")))

# C++ wrappers are compiled against the CUDA headers and linked against the
# driver's stub library when the toolkit is installed.
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%include", os.path.join(config.wirc_source_root, "include")))
if config.cuda_root and os.path.exists(os.path.join(config.cuda_root, "include", "cuda.h")):
    config.available_features.add("cuda")
    config.substitutions.append(("%cuda_include", os.path.join(config.cuda_root, "include")))
    stub = os.path.join(config.cuda_root, "lib64", "stubs")
    config.substitutions.append(("%cuda_stub_lib", f"-L{stub} -lcuda"))

# Kernel compilation (lib/cuda): nvJitLink and NVRTC, and LLVM's NVPTX backend.
if config.cuda_root and config.kernel_compiler:
    config.available_features.add("cuda-compiler")
    config.substitutions.append(("%cuda_root", config.cuda_root))
if config.llvm_nvptx:
    config.available_features.add("llvm-nvptx")
config.substitutions.append(
    ("%kernelbench", config.python_executable + " " +
     os.path.join(config.wirc_source_root, "tools", "kernelbench", "kernelbench.py")))
