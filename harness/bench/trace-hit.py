# gdb script of harness/bench/trace-hit.sh: wait for the guest's sync, put
# a breakpoint on the probed address, single-step the call from there to
# its return, write every PC to KPT_OUT.  KPT_PORT, KPT_LOG, KPT_OUT and
# KPT_ARCH are set by the caller.
import re
import time

import gdb  # pylint: disable=import-error


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def reg(name):
    return int(gdb.parse_and_eval(f'(unsigned long)${name}')) & (2**64 - 1)


def guest_addr():
    deadline = time.time() + 600
    while time.time() < deadline:
        with open(KPT_LOG, errors='replace') as f:
            m = re.search(r'^kptrace addr ([0-9a-f]+)', f.read(), re.M)
        if m:
            return int(m.group(1), 16)
        time.sleep(0.2)
    raise RuntimeError('the guest printed no address')


run('set pagination off')
run(f'target remote :{KPT_PORT}')
run('hbreak ksys_sync')
run('continue')
addr = guest_addr()
run('delete')
run(f'hbreak *{addr:#x}')
run('continue')
if reg('pc') != addr:
    raise RuntimeError(f'stopped at {reg("pc"):#x}, not {addr:#x}')
run('delete')
# The call ends where it returns to: x30 at the entry on arm64 (or at the
# ADR, which comes before anything of the function changes it), the word
# at the stack pointer on x86_64.
if KPT_ARCH == 'arm64':
    ret = reg('x30')
else:
    ret = int(gdb.parse_and_eval('*(unsigned long *)$sp')) & (2**64 - 1)
pcs = []
pc = addr
while pc != ret and len(pcs) < 200000:
    pcs.append(pc)
    run('stepi')
    pc = reg('pc')
with open(KPT_OUT, 'w') as f:
    for pc in pcs:
        f.write(f'{pc:x}\n')
run('detach')
