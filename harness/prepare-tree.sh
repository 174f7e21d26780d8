#!/usr/bin/env bash
# Build the patched kernel source tree and print its path as the last line.
#
#   1. extract Debian's linux-source-6.1 once into $CACHE (pristine copy);
#   2. make $TREE a copy of it, once;
#   3. stage every file we own or patch: ours from the repo, patched ones
#      from the pristine copy with harness/patches/*.patch applied;
#   4. copy staged files whose content changed into $TREE (so unchanged
#      files keep their mtime and builds stay incremental), put back from
#      the pristine copy any file staged last time but not now;
#   5. delete the stock kprobes files we do not replace, and fail loudly if
#      a stock file survived or one of ours is missing.
. "$(dirname "$0")/lib.sh"

extract_pristine
if [ ! -f "$TREE/.kprobes-tree" ]; then
	say "creating the working tree $TREE (once)"
	rm -rf "$TREE"
	cp -a "$PRISTINE" "$TREE"
	rm -f "$TREE/.extracted"
	touch "$TREE/.kprobes-tree"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Patched base files, from pristine
for p in "$REPO"/harness/patches/*.patch; do
	[ -e "$p" ] || continue
	for f in $(grep -E '^\+\+\+ b/' "$p" | sed -E 's|^\+\+\+ b/([^[:space:]]+).*|\1|'); do
		[ -f "$stage/$f" ] && continue
		mkdir -p "$stage/$(dirname "$f")"
		cp "$PRISTINE/$f" "$stage/$f"
	done
done
for p in "$REPO"/harness/patches/*.patch; do
	[ -e "$p" ] || continue
	patch -s -p1 -d "$stage" --no-backup-if-mismatch < "$p" ||
		die "patch $(basename "$p") does not apply"
done
# Ours
our_files > "$stage/.ours"
while read -r f; do
	mkdir -p "$stage/$(dirname "$f")"
	cp "$REPO/$f" "$stage/$f"
done < "$stage/.ours"

(cd "$stage" && find . -type f ! -name .ours | sed 's|^\./||' | sort) > "$stage/.manifest"

# Files we placed last time and no longer do go back to pristine.
if [ -f "$TREE/.kprobes-manifest" ]; then
	comm -23 "$TREE/.kprobes-manifest" "$stage/.manifest" | while read -r f; do
		if [ -f "$PRISTINE/$f" ]; then
			cp -p "$PRISTINE/$f" "$TREE/$f"
		else
			rm -f "$TREE/$f"
		fi
	done
fi

# Stock kprobes files go, except those we replace.
keep() { local k; for k in "${STOCK_KEEP[@]}"; do [ "$1" = "$k" ] && return 0; done; return 1; }
for d in "${STOCK_DIRS[@]}"; do
	[ -d "$PRISTINE/$d" ] || continue
	(cd "$PRISTINE" && find "$d" -type f) | while read -r f; do
		keep "$f" || grep -qx "$f" "$stage/.manifest" || rm -f "$TREE/$f"
	done
done
for f in "${STOCK_FILES[@]}"; do
	grep -qx "$f" "$stage/.manifest" || rm -f "$TREE/$f"
done

# Copy what changed
rsync -rc --exclude=/.ours --exclude=/.manifest "$stage/" "$TREE/"
cp "$stage/.manifest" "$TREE/.kprobes-manifest"

# Verify: every stock file is gone or is ours, and every file of ours is in.
bad=0
check_stock() {
	local f=$1
	[ -e "$TREE/$f" ] || return 0
	if grep -qx "$f" "$stage/.ours"; then
		cmp -s "$REPO/$f" "$TREE/$f" || { echo "stale: $f" >&2; bad=1; }
	elif ! keep "$f"; then
		echo "stock kprobes file survived: $f" >&2
		bad=1
	fi
}
for f in "${STOCK_FILES[@]}"; do check_stock "$f"; done
for d in "${STOCK_DIRS[@]}"; do
	[ -d "$TREE/$d" ] || continue
	while read -r f; do check_stock "$f"; done < <(cd "$TREE" && find "$d" -type f)
done
while read -r f; do
	cmp -s "$REPO/$f" "$TREE/$f" || { echo "missing or stale in tree: $f" >&2; bad=1; }
done < "$stage/.ours"
[ "$bad" = 0 ] || die "the tree is not what the repo says"

say "tree ready: $(wc -l < "$stage/.ours") files of ours, $(ls "$REPO"/harness/patches/*.patch 2>/dev/null | wc -l) patches"
echo "$TREE"
