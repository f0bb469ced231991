# lit configuration for wirc's golden tests.
import os

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

# C++ wrappers are compiled against the CUDA headers and linked against the
# driver's stub library when the toolkit is installed.
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%include", os.path.join(config.wirc_source_root, "include")))
if config.cuda_root and os.path.exists(os.path.join(config.cuda_root, "include", "cuda.h")):
    config.available_features.add("cuda")
    config.substitutions.append(("%cuda_include", os.path.join(config.cuda_root, "include")))
    stub = os.path.join(config.cuda_root, "lib64", "stubs")
    config.substitutions.append(("%cuda_stub_lib", f"-L{stub} -lcuda"))
