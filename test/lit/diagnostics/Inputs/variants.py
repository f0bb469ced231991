"""Malformed variants of a good graph, each compiled by wirc.

A test script builds its variants with `add` and prints, for each, its name,
wirc's diagnostics, its exit code and whether it wrote an output file."""
import copy
import json
import os
import subprocess


class Variants:
    def __init__(self, good_path: str, out_dir: str):
        with open(good_path) as f:
            self.good = json.load(f)
        self.out = out_dir
        self.names: list[str] = []
        self.args: dict[str, tuple] = {}
        os.makedirs(out_dir, exist_ok=True)

    def add(self, name: str, change, args: tuple = ()) -> None:
        """Writes NAME.json: the good graph after change(doc), compiled with
        the extra command-line args."""
        self.names.append(name)
        self.args[name] = tuple(args)
        doc = copy.deepcopy(self.good)
        change(doc)
        with open(os.path.join(self.out, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)

    def run(self, wirc: str, *args: str) -> None:
        for name in self.names:
            path = os.path.join(self.out, name + ".json")
            target = os.path.join(self.out, name + ".out")
            result = subprocess.run([wirc, "compile", path, "-o", target, *args,
                                     *self.args[name]],
                                    capture_output=True, text=True)
            print(f"== {name}")
            print(result.stderr.replace(path, name + ".json"), end="")
            print(f"exit {result.returncode}, output "
                  f"{'written' if os.path.exists(target) else 'none'}")
