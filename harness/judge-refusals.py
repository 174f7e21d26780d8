#!/usr/bin/env python3
"""Judge the refusals of the probe-every-function run.

    judge-refusals.py ARCH VMLINUX LOG

LOG holds lines "guest-everyfn-refused: MODE ERRNO ADDR SYMBOL" from
harness/guest/every_function.c.  A refusal has a good reason when:

  EBUSY    the text is reserved by another patcher (jump label, static
           call, alternatives, ftrace) or is a BUG()/WARN() site;
  EINVAL   the instruction the probe would cover is one the backend
           refuses (exception generation or return, mode switches, memory
           indirect branches on x86, exclusives and PSTATE writes on arm64,
           ...), read from VMLINUX with objdump;
  EILSEQ   objdump cannot decode the bytes either (not code);
  EINVAL   for a kretprobe, also a function of arch_kretprobe_blacklist
           (read from the backend's kretprobe.c).

Anything else is an unexplained refusal.  Prints the statistics and every
unexplained refusal, then "N explained, N unexplained"; exits non-zero if
any is unexplained.
"""
import collections
import re
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

# x86: the mnemonics x86_classify_insn() refuses
X86_REFUSED = re.compile(
    r'^(ud2|ud1|ud0|ud1[lq]?|int3|int1|icebp|hlt|int|into|iret[lqw]?|'
    r'lret[lqw]?|ljmp[lqw]?|lcall[lqw]?|sysret[lq]?|syscall|sysenter|'
    r'sysexit[lq]?|swapgs|mwaitx?|monitorx?|vm\w+|getsec|invept|invvpid|'
    r'clgi|stgi|skinit|invlpga|tdcall|seam\w+|encl[suv])\b')
X86_MEM_INDIRECT = re.compile(r'^(jmp|call)q?\s+\*.*\(')
X86_MOV_SEG = re.compile(r'^mov\s+[^,]+,%[cdefgs]s$')

# arm64: what insn_rejected() of decode-insn.c refuses
ARM64_REFUSED = re.compile(
    r'^(svc|hvc|smc|brk|hlt|dcps\d|eret\w*|bra[ab]z?|blra[ab]z?|reta[ab]|'
    r'ld[a]?xr[bh]?|ld[a]?xp|st[l]?xr[bh]?|st[l]?xp|msr|wfi|wfe|sev|sevl|'
    r'yield|hint|wfit|wfet)\b')
ARM64_MRS_DAIF = re.compile(r'^mrs\s+\w+,\s*daif\b')
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


def reason(mode, err, sym, insns):
    """Why the refusal is good, or None."""
    if mode == 'r' and err == 'EINVAL' and sym.split('.')[0] in KRETPROBE_BLACKLIST:
        return 'arch_kretprobe_blacklist'
    if err == 'EBUSY':
        return 'reserved text (jump label, static call, alternative, BUG)'
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
        if (ARM64_REFUSED.match(text) or ARM64_MRS_DAIF.match(text) or
                ARM64_FP_LITERAL.match(text)):
            return 'refused instruction: %s' % text
    return None


refusals = []
with open(log, errors='replace') as f:
    for line in f:
        m = re.search(r'guest-everyfn-refused: (\w) (\w+) 0x([0-9a-f]+) (\S+)',
                      line)
        if m:
            refusals.append((m.group(1), m.group(2), int(m.group(3), 16),
                             m.group(4)))

dis = disassembly(sorted({a for _, e, a, _ in refusals if e != 'EBUSY'}))
stats = collections.Counter()
why = collections.Counter()
bad = []
for mode, err, addr, sym in refusals:
    r = reason(mode, err, sym, dis.get(addr, []))
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
