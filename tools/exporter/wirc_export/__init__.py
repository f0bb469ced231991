"""Export PyTorch Inductor graphs to wirc's graph format.

Two ways in:

    python -m wirc_export --out DIR script.py [ARGS...]

runs a script and writes one graph-format file per graph Inductor compiles
(forward, backward, and every graph after a graph break), and

    with wirc_export.exporting("DIR"):
        torch.compile(fn)(x)

does the same in process. See README.md beside this package.

wirc_export.native (libwirc-c through ctypes) needs neither torch nor this
package's other modules, so they are imported on first use.
"""

__all__ = ["ExportError", "exporting"]


def __getattr__(name):
    if name in __all__:
        from . import export
        return getattr(export, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
