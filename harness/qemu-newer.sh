#!/usr/bin/env bash
# A newer qemu-system-x86_64 than bookworm's 7.2, for the one test that
# needs it: QEMU's TCG emulates the x2APIC MSRs (and raises #GP on a
# reserved one) only from 8.1 on, and no MSR read faults before that
# (harness/check-msr.sh).  Debian's bookworm-backports package, unpacked
# into the cache (not installed: the rest of the harness keeps using the
# system's QEMU, whose guest instruction counts the benchmark relies on).
# Prints the directory of the binary.
#
#   QEMU_NEWER_MIRROR=http://deb.debian.org/debian harness/qemu-newer.sh
. "$(dirname "$0")/lib.sh"

dir=$CACHE/qemu-newer
bin=$dir/usr/bin/qemu-system-x86_64
if [ ! -x "$bin" ]; then
	mirror=${QEMU_NEWER_MIRROR:-http://deb.debian.org/debian}
	say "fetching qemu-system-x86 from bookworm-backports (once)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# The package's file name and checksum from the suite's index
	python3 - "$mirror" "$tmp/qemu.deb" <<'PY' || die "cannot fetch qemu-system-x86 from bookworm-backports"
import hashlib, lzma, sys, urllib.request
mirror, out = sys.argv[1], sys.argv[2]
index = urllib.request.urlopen(
    mirror + "/dists/bookworm-backports/main/binary-amd64/Packages.xz",
    timeout=120).read()
stanza = None
for s in lzma.decompress(index).decode().split("\n\n"):
    if s.startswith("Package: qemu-system-x86\n"):
        stanza = dict(l.split(": ", 1) for l in s.splitlines()
                      if ": " in l and not l.startswith(" "))
if not stanza:
    sys.exit("no qemu-system-x86 in bookworm-backports")
deb = urllib.request.urlopen(mirror + "/" + stanza["Filename"],
                             timeout=600).read()
if hashlib.sha256(deb).hexdigest() != stanza["SHA256"]:
    sys.exit("checksum mismatch for " + stanza["Filename"])
open(out, "wb").write(deb)
print("qemu-system-x86", stanza["Version"], file=sys.stderr)
PY
	rm -rf "$dir"
	dpkg-deb -x "$tmp/qemu.deb" "$dir"
	"$bin" --version > /dev/null || die "the backports QEMU does not run here"
fi
dirname "$bin"
