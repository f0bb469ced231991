"""python -m wirc_export --out DIR [--wirc WIRC --replace] script.py [ARGS...]"""

import argparse
import runpy
import sys

from .export import exporting


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wirc_export",
        description="Run a PyTorch script and export every graph Inductor compiles "
        "to wirc's graph format.")
    parser.add_argument("--out", required=True, help="directory for the graph files")
    parser.add_argument("--artifacts", action="store_true",
                        help="include each kernel config's compiled PTX and cubin")
    parser.add_argument("--replace", choices=["python", "fx-module", "cpp"], default=None,
                        help="run the program with wirc's emitted wrapper instead of "
                        "Inductor's (validation; cpp implies --artifacts)")
    parser.add_argument("--wirc", default="wirc",
                        help="for --replace: the wirc executable, or libwirc-c.so to compile "
                        "in this process")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    options = parser.parse_args()
    sys.argv = [options.script] + options.args
    artifacts = options.artifacts or options.replace == "cpp"
    with exporting(options.out, artifacts=artifacts, replace=options.replace,
                   wirc=options.wirc):
        runpy.run_path(options.script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
