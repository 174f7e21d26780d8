#!/usr/bin/env bash
# Install what the harness needs, once; quiet when everything is there.
set -euo pipefail
pkgs=(linux-source-6.1 qemu-system-x86 busybox-static flex bison bc
      libelf-dev libssl-dev cpio ccache rsync python3 kmod file xz-utils
      gcc make perl patch sparse)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
echo "==> installing: ${missing[*]}" >&2
[ "$(id -u)" = 0 ] || { echo "error: run as root to install ${missing[*]}" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
