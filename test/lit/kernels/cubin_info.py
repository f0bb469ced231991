"""Prints what a cubin is: `ELF64 EM_CUDA sm_NN`, from its ELF header.

usage: cubin_info.py FILE...
"""
import struct
import sys

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        print(f"{path}: not ELF")
        continue
    elf_class = {1: "ELF32", 2: "ELF64"}.get(data[4], "ELF?")
    (machine,) = struct.unpack_from("<H", data, 18)
    (flags,) = struct.unpack_from("<I", data, 48)
    # EM_CUDA is 190; CUDA 12 and later cubins keep the SM number in bits 8-15.
    print(f"{elf_class} {'EM_CUDA' if machine == 190 else machine} sm_{(flags >> 8) & 0xFF}")
