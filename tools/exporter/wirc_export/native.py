"""wirc in this process: a ctypes binding of libwirc-c (include/wirc-c/wirc.h).

    lib = native.load("build/release/tools/wirc/libwirc-c.so")
    result = lib.run(["compile", "graph.json", "--emit=python"])
    result.returncode, result.stdout, result.stderr

`run` takes the arguments of the `wirc` command line and returns what the
executable would: its exit code, and its standard output and error as text.
Files (-o, --output-dir) are written as the executable writes them. This
module needs neither torch nor a compiler, only the built library.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import threading
from typing import Sequence

API_VERSION = 1

_loaded: dict[str, "Library"] = {}
_lock = threading.Lock()


def is_library(path: str) -> bool:
    """Whether `path` names libwirc-c rather than the wirc executable."""
    name = os.path.basename(path)
    return name.endswith(".so") or ".so." in name


class Library:
    def __init__(self, path: str):
        self.path = path
        lib = ctypes.CDLL(path)
        lib.wirc_c_api_version.restype = ctypes.c_int
        lib.wirc_c_api_version.argtypes = []
        found = lib.wirc_c_api_version()
        if found < API_VERSION:
            raise OSError(f"{path}: C API version {found}; this binding needs {API_VERSION}")
        lib.wirc_run.restype = ctypes.c_void_p
        lib.wirc_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        for stream in ("stdout", "stderr"):
            fn = getattr(lib, f"wirc_result_{stream}")
            fn.restype = ctypes.POINTER(ctypes.c_char)
            fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.wirc_result_exit_code.restype = ctypes.c_int
        lib.wirc_result_exit_code.argtypes = [ctypes.c_void_p]
        lib.wirc_result_free.restype = None
        lib.wirc_result_free.argtypes = [ctypes.c_void_p]
        lib.wirc_version.restype = ctypes.c_char_p
        lib.wirc_version.argtypes = []
        self._lib = lib
        # The first run in a process builds the command-line parser, which
        # later runs reuse: build it now, at load, not in the first compile.
        self.run(["--version"])

    @property
    def version(self) -> str:
        return self._lib.wirc_version().decode()

    def run(self, args: Sequence[str], text: bool = True) -> subprocess.CompletedProcess:
        """Runs `wirc ARGS...`; the result reads like subprocess.run's with
        capture_output=True."""
        argv = ["wirc", *args]
        encoded = [os.fsencode(a) for a in argv]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        result = self._lib.wirc_run(len(encoded), array)
        if not result:
            raise MemoryError("wirc_run could not allocate its result")
        try:
            code = self._lib.wirc_result_exit_code(result)
            streams = []
            for stream in ("stdout", "stderr"):
                size = ctypes.c_size_t()
                data = getattr(self._lib, f"wirc_result_{stream}")(result, ctypes.byref(size))
                raw = ctypes.string_at(data, size.value)
                streams.append(raw.decode("utf-8", "replace") if text else raw)
        finally:
            self._lib.wirc_result_free(result)
        return subprocess.CompletedProcess(argv, code, streams[0], streams[1])


def load(path: str) -> Library:
    """The library at `path`, loaded once per process."""
    key = os.path.realpath(path)
    with _lock:
        if key not in _loaded:
            _loaded[key] = Library(path)
        return _loaded[key]
