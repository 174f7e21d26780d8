#!/usr/bin/env bash
# Where the instructions of one probe hit go, function by function.
#
#   harness/bench/trace-hit.sh VARIANT KIND [OPT]
#
# Boots the bench kernel VARIANT (ours-none, stock-preempt, ...; built by
# make bench, in $KPROBES_CACHE/bench/$ARCH-VARIANT) with QEMU's gdb stub,
# sets up a probe of KIND (as kprobes_bench.ko's setup: stepped, pre, ret,
# both, adr) with jump optimization OPT (0 or 1, default 0), and
# single-steps one call of the probed function with gdb, from its call to
# its return to the caller.  Prints the instruction count of each
# function the CPU went through (kernel symbols from vmlinux, the bench
# module's from the guest's /proc/kallsyms; "?" for slots and detours),
# and the total; the full list of PCs goes to
# $KPROBES_CACHE/bench/results/trace-ARCH-VARIANT-KIND-OPT.pcs.
#
# An unprobed call is the function's own instructions only (about six),
# so the total less those is the cost of the hit.  Compare ours with stock
# by running both; a developer's tool, not part of make check or make bench.
. "$(dirname "$0")/../lib.sh"

variant=${1:?usage: trace-hit.sh VARIANT KIND [OPT]} kind=${2:?KIND} opt=${3:-0}
[ -n "$KARCH" ] || die "unknown ARCH=$ARCH"
build=$CACHE/bench/$ARCH-$variant
[ -f "$build/vmlinux" ] || die "no $build/vmlinux: run make bench (BENCH_VARIANTS=$variant) first"
command -v gdb-multiarch > /dev/null || {
	[ "$(id -u)" = 0 ] || die "gdb-multiarch is needed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q gdb-multiarch >&2
}
case "$ARCH" in
x86_64)	image=$build/arch/x86/boot/bzImage ;;
arm64)	image=$build/arch/arm64/boot/Image ;;
esac
out=$CACHE/bench/results/trace-$ARCH-$variant-$kind-$opt
mkdir -p "$(dirname "$out")"

guest=$(mktemp)
trap 'rm -f "$guest"' EXIT
cat > "$guest" <<GUEST
#!/bin/sh
B=/sys/kernel/debug/kprobes_bench
insmod /modules/kprobes_bench.ko hits=2
[ -w /proc/sys/debug/kprobes-optimization ] &&
	echo $opt > /proc/sys/debug/kprobes-optimization
echo "setup trace $kind" > \$B/ctl
sleep 1
grep -i kpb_target /sys/kernel/debug/kprobes/list | sed 's/^/kptrace list /'
# The module's symbols, for the report; then the probed address
grep '\[kprobes_bench\]' /proc/kallsyms | sed 's/^/kptrace sym /'
sym=kpb_target0
[ "$kind" = adr ] && sym=kpb_target_adr0_adr
echo "kptrace addr \$(awk -v s=\$sym '\$3 == s { print \$1 }' /proc/kallsyms)"
# gdb waits for this sync to set its breakpoint on the probed address
sync
echo measure > \$B/ctl
echo teardown > \$B/ctl
GUEST

port=$((20000 + RANDOM % 20000))
log=$out.log
rm -f "$log"
say "booting $variant for a trace of one $kind hit (opt $opt), gdb on port $port"
KPROBES_BUILD=$build SMP=1 QEMU_TIMEOUT=${QEMU_TIMEOUT:-900} \
QEMU_EXTRA="-icount shift=0,sleep=off -gdb tcp::$port $([ "$ARCH" = arm64 ] && echo -cpu cortex-a57)" \
GUEST_MODULES="$build/kprobes_bench/kprobes_bench.ko" KERNEL_CMDLINE="nokaslr" \
	"$REPO/harness/run-qemu.sh" "$image" "$guest" "$log" &
qemu=$!
# QEMU starts once it has the CPU lock (make bench may hold it)
while kill -0 "$qemu" 2> /dev/null; do
	ss -ltn 2> /dev/null | grep -q ":$port " && break
	sleep 0.5
done
gdb-multiarch -q -batch -nx "$build/vmlinux" \
	-ex "python KPT_PORT=$port; KPT_LOG='$log'; KPT_OUT='$out.pcs'; KPT_ARCH='$ARCH'" \
	-x "$REPO/harness/bench/trace-hit.py" > "$out.gdb" 2>&1 ||
	{ tail -n 20 "$out.gdb" >&2; }
wait "$qemu" || true
[ -s "$out.pcs" ] || { tail -n 20 "$out.gdb" "$log" >&2; die "no trace (see $out.gdb)"; }
grep '^kptrace list' "$log" | sed 's/^kptrace list /probe: /'
python3 - "$build/vmlinux" "$log" "$out.pcs" <<'PY'
import bisect, collections, subprocess, sys
vmlinux, log, pcs = sys.argv[1:]
syms = []
for line in subprocess.run(['nm', '-n', vmlinux], capture_output=True,
                           text=True).stdout.splitlines():
    a, t, n = line.split()[:3]
    if t in 'tTwW':
        syms.append((int(a, 16), n))
for line in open(log, errors='replace'):
    if line.startswith('kptrace sym '):
        a, t, n = line.split()[2:5]
        syms.append((int(a, 16), n))
syms.sort()
addrs = [a for a, _ in syms]
def name(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    # Farther than 64 KiB from a symbol: a slot or a detour
    if i < 0 or pc - addrs[i] > 0x10000:
        return '?'
    return syms[i][1]
order, count = [], collections.Counter()
prev = None
for line in open(pcs):
    n = name(int(line, 16))
    count[n] += 1
    if n != prev:
        order.append(n)
        prev = n
total = sum(count.values())
seen = set()
for n in order:
    if n not in seen:
        seen.add(n)
        print(f'{count[n]:6d}  {n}')
print(f'{total:6d}  total')
PY
