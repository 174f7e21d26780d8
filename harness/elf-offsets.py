#!/usr/bin/env python3
"""Print the file offset of symbols of a 64-bit little-endian ELF file, as
uprobe_events wants them: "NAME 0xOFFSET" for each NAME given, or for every
global symbol in an executable segment if none is.

    elf-offsets.py FILE [NAME...]
"""
import struct
import sys


def main(path, names):
    data = open(path, 'rb').read()
    phoff, shoff = struct.unpack_from('<QQ', data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from('<HHHH', data, 54)
    loads = []
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', data, phoff + i * phentsize)
        if p_type == 1:                         # PT_LOAD
            loads.append((p_vaddr, p_filesz, p_offset, p_flags & 1))
    sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
                for i in range(shnum)]
    symbols = {}
    exported = []
    for sh in sections:
        if sh[1] != 2:                          # SHT_SYMTAB
            continue
        strtab = sections[sh[6]][4]             # sh_link -> sh_offset
        for off in range(sh[4], sh[4] + sh[5], sh[9]):
            st_name, st_info, _, _, st_value, _ = struct.unpack_from(
                '<IBBHQQ', data, off)
            end = data.index(b'\0', strtab + st_name)
            name = data[strtab + st_name:end].decode()
            symbols[name] = st_value
            if st_info >> 4 == 1 and any(       # STB_GLOBAL, executable
                    x and lo <= st_value < lo + n for lo, n, _, x in loads):
                exported.append(name)
    for name in names or sorted(exported, key=symbols.get):
        if name not in symbols:
            sys.exit(f'{path}: no symbol {name}')
        vaddr = symbols[name]
        for start, size, offset, _ in loads:
            if start <= vaddr < start + size:
                print(f'{name} {hex(vaddr - start + offset)}')
                break
        else:
            sys.exit(f'{path}: {name} is not in a loaded segment')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
