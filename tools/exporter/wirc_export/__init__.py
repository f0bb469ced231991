"""Export PyTorch Inductor graphs to wirc's graph format.

Two ways in:

    python -m wirc_export --out DIR script.py [ARGS...]

runs a script and writes one graph-format file per graph Inductor compiles
(forward, backward, and every graph after a graph break), and

    with wirc_export.exporting("DIR"):
        torch.compile(fn)(x)

does the same in process. See README.md beside this package.
"""

from .export import ExportError, exporting

__all__ = ["ExportError", "exporting"]
