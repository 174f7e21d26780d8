#!/usr/bin/env bash
# Boot a kernel image in QEMU with a busybox initramfs that runs a guest
# script, and save the serial console to a log file.
#
#   run-qemu.sh IMAGE GUEST-SCRIPT LOG
#
# The guest powers off by itself (reboot -f with -no-reboot); a run that
# hangs is killed after $QEMU_TIMEOUT seconds.  SMP sets the number of
# vCPUs, GUEST_MODULES the modules to put in the guest's /modules (default:
# the kprobes samples of $BUILD), QEMU_EXTRA more QEMU options.  On arm64,
# ARM64_EL2=1 boots the kernel at EL2 (virtualization=on: with the VHE of
# the CPU "max", the kernel stays there, as on a KVM host) and ARM64_CPU
# names another CPU than "max" (cortex-a57: ARMv8.0, without PAN, VHE or
# pointer authentication).
. "$(dirname "$0")/lib.sh"

image=$1 script=$2 log=$3
SMP=${SMP:-2}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-900}

case "$ARCH" in
x86_64)	busybox=/bin/busybox ;;
arm64)	busybox=$CACHE/busybox-arm64 ;;
esac
file -L "$busybox" | grep -q 'statically linked' ||
	die "a static busybox is needed at $busybox (make deps)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,modules}
cp "$busybox" "$root/bin/busybox"
# The applets the guest scripts use, ftracetest's included
for app in sh mount cat echo grep insmod rmmod lsmod sleep true dmesg mkdir \
	   reboot sed wc head tail test printf cut tr seq ls uname sync dd \
	   id find sort dirname basename date mktemp tee kill expr modprobe \
	   umount ping usleep ip ifconfig xargs rm rmdir pwd ln awk chmod \
	   env timeout readlink stat od uniq sysctl; do
	ln -s busybox "$root/bin/$app"
done
if [ -n "${GUEST_MODULES:-}" ]; then
	# shellcheck disable=SC2086 # a list of paths
	cp $GUEST_MODULES "$root/modules/"
else
	find "$BUILD" -name '*.ko' -path '*samples/kprobes*' -exec cp {} "$root/modules/" \;
fi
# Every module, installed for modprobe (ftracetest's kprobe_module.tc
# loads trace-printk)
krel=$(cat "$BUILD/include/config/kernel.release")
mkdir -p "$root/lib/modules/$krel"
find "$BUILD" -name '*.ko' -exec cp {} "$root/lib/modules/$krel/" \;
cp "$BUILD"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$krel/" 2>/dev/null || true
depmod -b "$root" "$krel" 2>/dev/null || say "depmod failed: modprobe will not work in the guest"
# The programs, modules and scripts of harness/guest/, and ftracetest
"$REPO/harness/build-guest.sh" "$root/guest"
cp "$REPO"/harness/guest/*.sh "$root/guest/"
cp "$REPO/harness/guest-checks.sh" "$root/guest/checks.sh"
if [ "${STOCK:-}" = 1 ]; then echo stock; else echo ours; fi > "$root/guest/kernel"
cp -r "$TREE/tools/testing/selftests/ftrace" "$root/guest/ftrace"
rm -rf "$root/guest/ftrace/logs"
cp "$script" "$root/guest.sh"
# The file offset of busybox's entry point, for the uprobe_events check
python3 - "$busybox" > "$root/uprobe_offset" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
entry, phoff = struct.unpack_from('<QQ', data, 24)
phentsize, phnum = struct.unpack_from('<HH', data, 54)
for i in range(phnum):
    p_type, p_flags, p_offset, p_vaddr = struct.unpack_from('<IIQQ', data, phoff + i * phentsize)
    p_filesz = struct.unpack_from('<Q', data, phoff + i * phentsize + 32)[0]
    if p_type == 1 and p_vaddr <= entry < p_vaddr + p_filesz:
        print(hex(entry - p_vaddr + p_offset))
        break
PY
cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
ip link set lo up 2>/dev/null
echo "guest: running checks"
sh /guest.sh
echo "guest: done"
sync
reboot -f
INIT
chmod +x "$root/init" "$root/guest.sh"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$BUILD/initramfs.cpio"

case "$ARCH" in
x86_64)
	# One host thread for all vCPUs: with multi-threaded TCG, a vCPU
	# may keep running a stale translation of code that another vCPU
	# changed with text_poke() + text_poke_sync() (seen with QEMU 7.2:
	# an int3 in memory, read back by the very vCPU that then executes
	# the old instruction without trapping).  The vCPUs still interleave.
	qemu=(qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu max -m 1G)
	console=ttyS0 ;;
arm64)
	# Single-threaded TCG too: with multi-threaded TCG a vCPU kept
	# running a B that another vCPU had replaced by a BRK (with
	# aarch64_insn_patch_text_nosync() and kick_all_cpus_sync()), seen
	# as hits without their post_handler in the torture test.
	machine=virt,gic-version=3
	[ "${ARM64_EL2:-0}" = 1 ] && machine=$machine,virtualization=on
	cpu=${ARM64_CPU:-max,pauth-impdef=on}
	qemu=(qemu-system-aarch64 -machine "$machine" -accel tcg,thread=single -cpu "$cpu" -m 1G)
	console=ttyAMA0 ;;
esac

# A probe on init text that still runs after the init text is retired
DEFAULT_CMDLINE="kprobe_event=p:kpt/xbc,_xbc_exit"

say "booting $ARCH in QEMU with $SMP vCPUs (log: $log)"
# A kernel that panicked is done even when it cannot reset the machine (a
# CPU that does not stop holds the reboot up): end QEMU 10 s after the
# panic instead of at $QEMU_TIMEOUT.
rm -f "$log"
(
	while sleep 5; do
		if grep -q 'Kernel panic - not syncing' "$log" 2> /dev/null; then
			sleep 10
			pkill -f -- "^qemu-system-[a-z0-9_]+ .*-serial file:$log " || true
			break
		fi
	done
) > /dev/null 2>&1 &
watcher=$!
set +e
# shellcheck disable=SC2086 # QEMU_EXTRA is a list of options
with_cpu timeout --foreground "$QEMU_TIMEOUT" "${qemu[@]}" -smp "$SMP" ${QEMU_EXTRA:-} \
	-nographic -no-reboot -monitor none -serial "file:$log" \
	-kernel "$image" -initrd "$BUILD/initramfs.cpio" \
	-append "console=$console panic=-1 oops=panic loglevel=7 ${KERNEL_CMDLINE-$DEFAULT_CMDLINE} ${KERNEL_CMDLINE_EXTRA:-}" \
	< /dev/null > /dev/null 2>&1
rc=$?
kill "$watcher" 2> /dev/null
set -e
[ "$rc" = 124 ] && { echo "QEMU timed out after $QEMU_TIMEOUT s" >> "$log"; die "QEMU timed out"; }
exit 0
