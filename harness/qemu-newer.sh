#!/usr/bin/env bash
# A newer QEMU than bookworm's 7.2, for the tests that need one: on x86_64
# QEMU's TCG emulates the x2APIC MSRs (and raises #GP on a reserved one)
# only from 8.1 on, and no MSR read faults before that
# (harness/check-msr.sh); on arm64 its CPU "max" has FEAT_FPAC only from
# 8.0 on (harness/check-oops.sh).  Debian's bookworm-backports package of
# ARCH's QEMU (qemu-system-x86, qemu-system-arm), unpacked into the cache
# (not installed: the rest of the harness keeps using the system's QEMU,
# whose guest instruction counts the benchmark relies on).  Prints the
# directory of the binary.
#
#   [ARCH=arm64] QEMU_NEWER_MIRROR=http://deb.debian.org/debian harness/qemu-newer.sh
. "$(dirname "$0")/lib.sh"

case "$ARCH" in
x86_64)	pkg=qemu-system-x86 ;;
arm64)	pkg=qemu-system-arm ;;
*)	die "no newer QEMU for ARCH=$ARCH" ;;
esac
dir=$CACHE/qemu-newer
bin=$dir/usr/bin/qemu-system-$ARCH
[ "$ARCH" = arm64 ] && bin=$dir/usr/bin/qemu-system-aarch64
if [ ! -x "$bin" ]; then
	mirror=${QEMU_NEWER_MIRROR:-http://deb.debian.org/debian}
	say "fetching $pkg from bookworm-backports (once)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# The package's file name and checksum from the suite's index
	python3 - "$mirror" "$tmp/qemu.deb" "$pkg" <<'PY' || die "cannot fetch $pkg from bookworm-backports"
import hashlib, lzma, sys, urllib.request
mirror, out, pkg = sys.argv[1], sys.argv[2], sys.argv[3]
index = urllib.request.urlopen(
    mirror + "/dists/bookworm-backports/main/binary-amd64/Packages.xz",
    timeout=120).read()
stanza = None
for s in lzma.decompress(index).decode().split("\n\n"):
    if s.startswith("Package: " + pkg + "\n"):
        stanza = dict(l.split(": ", 1) for l in s.splitlines()
                      if ": " in l and not l.startswith(" "))
if not stanza:
    sys.exit("no " + pkg + " in bookworm-backports")
deb = urllib.request.urlopen(mirror + "/" + stanza["Filename"],
                             timeout=600).read()
if hashlib.sha256(deb).hexdigest() != stanza["SHA256"]:
    sys.exit("checksum mismatch for " + stanza["Filename"])
open(out, "wb").write(deb)
print(pkg, stanza["Version"], file=sys.stderr)
PY
	# Into the directory of the other arch's, if it is there
	mkdir -p "$dir"
	dpkg-deb -x "$tmp/qemu.deb" "$dir"
	"$bin" --version > /dev/null || die "the backports QEMU does not run here"
fi
dirname "$bin"
