#!/usr/bin/env bash
# Install what the harness needs, once; quiet when everything is there.
set -euo pipefail
pkgs=(linux-source-6.1 qemu-system-x86 busybox-static flex bison bc
      libelf-dev libssl-dev cpio ccache rsync python3 kmod file xz-utils
      gcc make perl patch sparse gcc-aarch64-linux-gnu qemu-system-arm
      libc6-dev libc6-dev-arm64-cross linux-libc-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} != 0 ]; then
	echo "==> installing: ${missing[*]}" >&2
	[ "$(id -u)" = 0 ] || { echo "error: run as root to install ${missing[*]}" >&2; exit 1; }
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# An arm64 busybox for the arm64 guest: Debian's busybox-static:arm64,
# unpacked into the cache (it cannot be installed beside the amd64 one).
bb64=${KPROBES_CACHE:-/var/cache/kprobes-build}/busybox-arm64
if [ ! -x "$bb64" ]; then
	echo "==> fetching busybox-static:arm64 for the arm64 guest" >&2
	dpkg --print-foreign-architectures | grep -qx arm64 || {
		dpkg --add-architecture arm64
		apt-get update -q >&2
	}
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q busybox-static:arm64 >&2) || {
		apt-get update -q >&2
		(cd "$tmp" && apt-get download -q busybox-static:arm64 >&2)
	}
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/root"
	mkdir -p "$(dirname "$bb64")"
	cp "$tmp/root/bin/busybox" "$bb64"
	rm -rf "$tmp"
fi
