#!/usr/bin/env bash
# Boot a kernel image in QEMU with a busybox initramfs that runs a guest
# script, and save the serial console to a log file.
#
#   run-qemu.sh IMAGE GUEST-SCRIPT LOG
#
# The guest powers off by itself (reboot -f with -no-reboot); a run that
# hangs is killed after $QEMU_TIMEOUT seconds.  SMP sets the number of
# vCPUs, GUEST_MODULES the modules to put in the guest's /modules (default:
# the kprobes samples of $BUILD), QEMU_EXTRA more QEMU options.
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
for app in sh mount cat echo grep insmod rmmod lsmod sleep true dmesg mkdir \
	   reboot sed wc head tail test printf cut tr seq ls uname sync awk \
	   sort uniq sysctl; do
	ln -s busybox "$root/bin/$app"
done
if [ -n "${GUEST_MODULES:-}" ]; then
	# shellcheck disable=SC2086 # a list of paths
	cp $GUEST_MODULES "$root/modules/"
else
	find "$BUILD" -name '*.ko' -path '*samples/kprobes*' -exec cp {} "$root/modules/" \;
fi
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
	qemu=(qemu-system-x86_64 -machine q35 -cpu max -m 1G)
	console=ttyS0 ;;
arm64)
	qemu=(qemu-system-aarch64 -machine virt,gic-version=3 -cpu max -m 1G)
	console=ttyAMA0 ;;
esac

say "booting $ARCH in QEMU with $SMP vCPUs (log: $log)"
set +e
# shellcheck disable=SC2086 # QEMU_EXTRA is a list of options
with_cpu timeout --foreground "$QEMU_TIMEOUT" "${qemu[@]}" -smp "$SMP" ${QEMU_EXTRA:-} \
	-nographic -no-reboot -monitor none -serial "file:$log" \
	-kernel "$image" -initrd "$BUILD/initramfs.cpio" \
	-append "console=$console panic=-1 oops=panic loglevel=7 ${KERNEL_CMDLINE_EXTRA:-}" \
	< /dev/null > /dev/null 2>&1
rc=$?
set -e
[ "$rc" = 124 ] && { echo "QEMU timed out after $QEMU_TIMEOUT s" >> "$log"; die "QEMU timed out"; }
exit 0
