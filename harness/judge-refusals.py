#!/usr/bin/env python3
"""Judge the refusals of the probe-every-function run.

    judge-refusals.py ARCH VMLINUX LOG

LOG holds lines "guest-everyfn-refused: MODE ERRNO ADDR SYMBOL" from
harness/guest/every_function.c.  A refusal has a good reason when:

  EBUSY    the text is reserved by another patcher: a jump label, a
           static call site, an SMP-alternatives lock prefix or an ftrace
           call site, read from VMLINUX's tables (__jump_table,
           static_call_sites, __smp_locks, mcount_loc); on x86, at the
           address or, behind a function's ENDBR, at the next instruction
           (where the kernel moves such a probe);
  EINVAL   the instruction the probe would cover is one the backend
           refuses (exception generation or return, mode switches, branches
           through fs, gs or with 0x66/0x67 on x86, exclusives and PSTATE
           writes on arm64,
           the UD2 or BRK of a BUG()/WARN() site, ...), read from VMLINUX
           with objdump;
  EILSEQ   objdump cannot decode the bytes either (not code);
  EINVAL   for a kretprobe, also a function of arch_kretprobe_blacklist
           (read from the backend's kretprobe.c);
  EINVAL   on a kernel with dynamic ftrace, also a function without an
           ftrace call site (a notrace function, by mcount_loc and the
           symbol's extent, up to the next symbol as kallsyms has it):
           kprobe_events
           refuses those itself (trace_kprobe.c, within_notrace_func(),
           unless CONFIG_KPROBE_EVENTS_ON_NOTRACE), before kprobes sees
           them.

Anything else is an unexplained refusal.  Prints the statistics and every
unexplained refusal, then "N explained, N unexplained"; exits non-zero if
any is unexplained.
"""
import bisect
import collections
import re
import struct
import subprocess
import sys

arch, vmlinux, log = sys.argv[1:4]
REPO = __file__.rsplit('/harness/', 1)[0]


def kretprobe_blacklist():
    """The names in the backend's arch_kretprobe_blacklist[]."""
    src = {'x86_64': 'arch/x86/kernel/kprobes/kretprobe.c',
           'arm64': 'arch/arm64/kernel/probes/kretprobe.c'}[arch]
    with open('%s/%s' % (REPO, src)) as f:
        text = f.read()
    m = re.search(r'arch_kretprobe_blacklist\[\] = \{(.*?)\};', text, re.S)
    return set(re.findall(r'"([^"]+)"', m.group(1))) if m else set()


KRETPROBE_BLACKLIST = kretprobe_blacklist()


class Vmlinux:
    """The symbols and the loaded contents of a 64-bit little-endian ELF."""

    def __init__(self, path):
        self.data = open(path, 'rb').read()
        phoff, shoff = struct.unpack_from('<QQ', self.data, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(
            '<HHHH', self.data, 54)
        self.loads = []
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
                '<IIQQQQ', self.data, phoff + i * phentsize)
            if p_type == 1:                     # PT_LOAD
                self.loads.append((p_vaddr, p_filesz, p_offset))
        sections = [struct.unpack_from('<IIQQQQIIQQ', self.data,
                                       shoff + i * shentsize)
                    for i in range(shnum)]
        self.syms = {}
        starts = set()
        for sh in sections:
            if sh[1] != 2:                      # SHT_SYMTAB
                continue
            strtab = sections[sh[6]][4]
            for off in range(sh[4], sh[4] + sh[5], sh[9]):
                st_name, _, _, _, st_value, _ = struct.unpack_from(
                    '<IBBHQQ', self.data, off)
                end = self.data.index(b'\0', strtab + st_name)
                self.syms[self.data[strtab + st_name:end].decode()] = st_value
                starts.add(st_value)
        self.starts = sorted(starts)

    def extent_of(self, addr):
        """[start, end) of the symbol at ADDR as kallsyms sizes it: up to
        the next symbol."""
        i = bisect.bisect_right(self.starts, addr)
        if i == 0 or i == len(self.starts):
            return None
        return self.starts[i - 1], self.starts[i]

    def read(self, vaddr, size):
        """SIZE bytes at VADDR, or None outside the file's segments."""
        for start, filesz, offset in self.loads:
            if start <= vaddr and vaddr + size <= start + filesz:
                return self.data[offset + vaddr - start:
                                 offset + vaddr - start + size]
        return None

    def table(self, start, stop):
        """The bytes between symbols START and STOP, b'' if absent."""
        if start not in self.syms or stop not in self.syms:
            return 0, b''
        base = self.syms[start]
        return base, self.read(base, self.syms[stop] - base) or b''


def reserved_text(elf):
    """Sorted (start, end, what) of the text other patchers rewrite."""
    out = []
    insn = 5 if arch == 'x86_64' else 4
    base, tab = elf.table('__start___jump_table', '__stop___jump_table')
    for off in range(0, len(tab) - 15, 16):
        code = base + off + struct.unpack_from('<i', tab, off)[0]
        out.append((code, code + insn, 'jump label'))
    base, tab = elf.table('__start_static_call_sites', '__stop_static_call_sites')
    for off in range(0, len(tab) - 7, 8):
        site = base + off + struct.unpack_from('<i', tab, off)[0]
        out.append((site, site + insn, 'static call site'))
    base, tab = elf.table('__smp_locks', '__smp_locks_end')
    for off in range(0, len(tab) - 3, 4):
        lock = base + off + struct.unpack_from('<i', tab, off)[0]
        out.append((lock, lock + 1, 'alternatives lock prefix'))
    base, tab = elf.table('__start_mcount_loc', '__stop_mcount_loc')
    for off in range(0, len(tab) - 7, 8):
        ip = struct.unpack_from('<Q', tab, off)[0]
        # arm64's call site is the second of two NOPs: cover both
        out.append((ip, ip + (insn if arch == 'x86_64' else 2 * insn),
                    'ftrace call site'))
    out.sort()
    return out


def ftrace_sites(elf):
    """Sorted addresses of the ftrace call sites (empty without ftrace)."""
    base, tab = elf.table('__start_mcount_loc', '__stop_mcount_loc')
    return sorted(struct.unpack_from('<Q', tab, off)[0]
                  for off in range(0, len(tab) - 7, 8))


def notrace(addr):
    """Is ADDR in a function without an ftrace call site, on an ftrace kernel?"""
    func = ELF.extent_of(addr) if FTRACE_SITES else None
    if not func:
        return False
    i = bisect.bisect_left(FTRACE_SITES, func[0])
    return i == len(FTRACE_SITES) or FTRACE_SITES[i] >= func[1]


def reserved_why(ranges, addr):
    """What reserves ADDR, or None."""
    i = bisect.bisect_right(ranges, (addr, float('inf'), ''))
    while i > 0 and ranges[i - 1][0] > addr - 16:
        i -= 1
        if ranges[i][0] <= addr < ranges[i][1]:
            return ranges[i][2]
    return None

# x86: the mnemonics x86_classify_insn() refuses
X86_REFUSED = re.compile(
    r'^(ud2|ud1|ud0|ud1[lq]?|int3|int1|icebp|hlt|int|into|iret[lqw]?|'
    r'lret[lqw]?|ljmp[lqw]?|lcall[lqw]?|sysret[lq]?|syscall|sysenter|'
    r'sysexit[lq]?|swapgs|mwaitx?|monitorx?|vm\w+|getsec|invept|invvpid|'
    r'clgi|stgi|skinit|invlpga|tdcall|seam\w+|encl[suv])\b')
# near jmp/call through memory: only with fs, gs, a 16-bit operand (data16,
# or objdump's w suffix) or a 32-bit address (addr32, or a %e register)
X86_MEM_INDIRECT = re.compile(
    r'^((data16|addr32)\s+.*\b(jmp|call)|(jmp|call)w?\s+\*%[fg]s:|'
    r'(jmp|call)w\s+\*|(jmp|call)q?\s+\*.*\(%e)')
X86_MOV_SEG = re.compile(r'^mov\s+[^,]+,%[cdefgs]s$')

# arm64: what insn_rejected() of decode-insn.c refuses
ARM64_REFUSED = re.compile(
    r'^(svc|hvc|smc|brk|hlt|dcps\d|eret\w*|bra[ab]z?|blra[ab]z?|reta[ab]|'
    r'ld[a]?xr[bh]?|ld[a]?xp|st[l]?xr[bh]?|st[l]?xp|msr|wfi|wfe|sev|sevl|'
    r'yield|hint|wfit|wfet)\b')
# Reads of the interrupt mask: DAIF, and the GIC's PMR (pseudo-NMIs)
ARM64_MRS_IRQ_MASK = re.compile(r'^mrs\s+\w+,\s*(daif|icc_pmr_el1|s3_0_c4_c6_0)\b')
ARM64_FP_LITERAL = re.compile(r'^ldr\s+[qdsbh]\d+,\s*[0-9a-f]+\s*<')


def disassembly(addrs):
    """The first instructions at each address, from objdump."""
    tool = 'aarch64-linux-gnu-objdump' if arch == 'arm64' else 'objdump'
    out = {}
    for addr in addrs:
        res = subprocess.run(
            [tool, '-d', '--no-show-raw-insn', '--start-address=%#x' % addr,
             '--stop-address=%#x' % (addr + 24), vmlinux],
            capture_output=True, text=True, check=False)
        insns = []
        for line in res.stdout.splitlines():
            m = re.match(r'^\s*([0-9a-f]+):\s+(.*)$', line)
            if m:
                insns.append((int(m.group(1), 16),
                              re.sub(r'\s+', ' ', m.group(2).split('#')[0]
                                     .split('//')[0]).strip()))
        out[addr] = insns
    return out


def reason(mode, err, addr, sym, insns):
    """Why the refusal is good, or None."""
    if mode == 'r' and err == 'EINVAL' and sym.split('.')[0] in KRETPROBE_BLACKLIST:
        return 'arch_kretprobe_blacklist'
    if err == 'EBUSY':
        what = reserved_why(RESERVED, addr)
        # x86 moves a probe on a function's ENDBR to the instruction after
        if (not what and arch == 'x86_64' and len(insns) > 1 and
                insns[0][0] == addr and insns[0][1].startswith('endbr64')):
            what = reserved_why(RESERVED, insns[1][0])
        return 'reserved text: %s' % what if what else None
    if not insns:
        return 'EILSEQ: no code' if err == 'EILSEQ' else None
    text = insns[0][1]
    if arch == 'x86_64' and text.startswith('endbr64') and len(insns) > 1:
        text = insns[1][1]
    if err == 'EILSEQ':
        return 'not code: %s' % text if '(bad)' in text else None
    if err != 'EINVAL':
        return None
    if arch == 'x86_64':
        if (X86_REFUSED.match(text) or X86_MEM_INDIRECT.match(text) or
                X86_MOV_SEG.match(text)):
            return 'refused instruction: %s' % text
    else:
        if (ARM64_REFUSED.match(text) or ARM64_MRS_IRQ_MASK.match(text) or
                ARM64_FP_LITERAL.match(text)):
            return 'refused instruction: %s' % text
    if notrace(addr):
        return 'notrace function: kprobe_events refuses it'
    return None


refusals = []
with open(log, errors='replace') as f:
    for line in f:
        m = re.search(r'guest-everyfn-refused: (\w) (\w+) 0x([0-9a-f]+) (\S+)',
                      line)
        if m:
            refusals.append((m.group(1), m.group(2), int(m.group(3), 16),
                             m.group(4)))

ELF = Vmlinux(vmlinux)
RESERVED = reserved_text(ELF)
FTRACE_SITES = ftrace_sites(ELF)
dis = disassembly(sorted({a for _, e, a, _ in refusals
                          if e != 'EBUSY' or not reserved_why(RESERVED, a)}))
stats = collections.Counter()
why = collections.Counter()
bad = []
for mode, err, addr, sym in refusals:
    r = reason(mode, err, addr, sym, dis.get(addr, []))
    stats[(mode, err, r is not None)] += 1
    if r:
        why[(mode, err, re.sub(r' .*', '', r.split(': ')[-1]) if 'instruction' in r else r)] += 1
    else:
        first = dis.get(addr, [(0, '?')])
        bad.append('%s %s %#x %s: %s' % (mode, err, addr, sym,
                                         ' ; '.join(i[1] for i in first[:3])))

kind = {'p': 'kprobes', 'r': 'kretprobes'}
for mode in 'pr':
    errs = sorted({e for m, e, _ in stats if m == mode})
    if not errs:
        continue
    print('%s refused: %s' % (kind[mode], ', '.join(
        '%s %d (%d explained)' % (e, stats[(mode, e, True)] + stats[(mode, e, False)],
                                  stats[(mode, e, True)]) for e in errs)))
    for (m, e, r), n in sorted(why.items()):
        if m == mode:
            print('  %s %-6s %5d  %s' % (kind[mode], e, n, r))
for b in bad:
    print('unexplained refusal: %s' % b)
good = sum(n for (_, _, ok), n in stats.items() if ok)
print('%d explained, %d unexplained' % (good, len(bad)))
sys.exit(1 if bad else 0)
