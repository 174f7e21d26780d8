#!/usr/bin/env bash
# make patches [CHECK=1]: the kprobes patch series for a pristine 6.1 tree.
#
#   1. make tree (the reference), and once: a git repo with the pristine
#      Debian linux-source-6.1 committed as tag "base";
#   2. harness/series.py builds one commit per entry of harness/series.txt
#      from the repo's current files, and `git format-patch` writes the
#      series and the cover letter (harness/series-cover.txt, with its
#      @PLACEHOLDERS@ filled from $CACHE/results) into $CACHE/patches;
#   3. `git am` of the series onto base, compared with the tree that
#      make tree prepared (marker files aside): must be identical;
#   4. checkpatch.pl --strict on every patch;
#   5. with CHECK=1: every step built incrementally for x86_64 and arm64
#      with the test configuration (harness/configs), then make docs.
# Prints the directory of the series as the last line.
. "$(dirname "$0")/lib.sh"

# unifdef for the series; python3-ply and python3-git for checkpatch's
# SPDX check (scripts/spdxcheck.py, run with Debian's python3)
prepare_tree_with unifdef git python3-ply python3-git

S=$CACHE/series
OUT=$CACHE/patches
results=$CACHE/results
ours=$(mktemp) stock=$(mktemp)
trap 'rm -f "$ours" "$stock"' EXIT
our_files > "$ours"
author=$(cd "$REPO" && echo "$(git config user.name) <$(git config user.email)>")
[ "$author" != " <>" ] || author="kprobes <kprobes@localhost>"
date=$(cd "$REPO" && git log -1 --format=%ad --date=raw 2>/dev/null || echo '1700000000 +0000')
# The git repo, non-bare (checkpatch's SPDX check wants that); its work
# tree is where git am runs.
AM=$S/am
export GIT_DIR=$AM/.git
mkdir -p "$S" "$results"
gitq() { git -c advice.detachedHead=false "$@"; }
# What the steps of the series are: the hash of their trees
steps_id() {
	git log --reverse --format=%T base..series | sha1sum | cut -c1-12
}

version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)

# 1. The base: the pristine tree, committed once
if ! git rev-parse -q --verify refs/tags/base > /dev/null 2>&1; then
	say "committing the pristine linux-source-6.1 as the base (once)"
	rm -rf "$AM"
	git init -q "$AM"
	git config core.bigFileThreshold 16m
	GIT_INDEX_FILE=$S/base.index git --work-tree="$PRISTINE" add -A -f -- . ':!.extracted'
	tree=$(GIT_INDEX_FILE=$S/base.index git write-tree)
	rm -f "$S/base.index"
	c=$(echo "Debian linux-source-6.1 $version" |
		GIT_AUTHOR_NAME=Debian GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org \
		GIT_COMMITTER_NAME=Debian GIT_COMMITTER_EMAIL=debian-kernel@lists.debian.org \
		GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' \
		git commit-tree "$tree")
	git tag base "$c"
	say "checking out the base for git am (once)"
	(cd "$AM" && env -u GIT_DIR git -c advice.detachedHead=false checkout -q -f --detach base)
fi

# 2. The commits and the patches
{
	printf '%s\n' "${STOCK_FILES[@]}"
	for d in "${STOCK_DIRS[@]}"; do
		git ls-tree -r --name-only base -- "$d"
	done | grep -vxF -f <(printf '%s\n' "${STOCK_KEEP[@]}")
} | sort -u > "$stock"

say "generating the series from the repo's files (harness/series.txt)"
head=$(python3 "$REPO/harness/series.py" --repo "$REPO" --git-dir "$GIT_DIR" \
	--base base --ours "$ours" --stock "$stock" \
	--series "$REPO/harness/series.txt" --author "$author" --date "$date")
git update-ref refs/heads/series "$head"
mkdir -p "$OUT"
rm -f "$OUT"/*.patch
git format-patch -q --cover-letter --no-renames --break-rewrites -o "$OUT" base..series
n=$(ls "$OUT"/*.patch | grep -vc '/0000-')

# 3. git am onto the pristine base; compare with make tree
say "git am of $n patches onto the pristine base"
(
	unset GIT_DIR
	cd "$AM"
	git am --abort > /dev/null 2>&1 || true
	gitq checkout -q -f --detach base
	git clean -q -fdx
	ls "$OUT"/*.patch | grep -v '/0000-' | xargs git am -q
) || die "git am failed"
am_tree=$(cd "$AM" && env -u GIT_DIR git rev-parse 'HEAD^{tree}')
# The tree make tree prepared, as a git tree.  Debian's .gitignore ignores
# every top-level path, so untracked files are listed with our own
# excludes: the harness' markers and what an in-tree build would leave.
cat > "$S/artefacts.exclude" <<'EOX'
/.kprobes-tree
/.kprobes-manifest
*.o
*.a
*.ko
*.mod
*.mod.c
*.order
*.symvers
.*.cmd
.*.d
/.config
/.config.old
/include/config/
/include/generated/
/arch/*/include/generated/
/.kunit/
/vmlinux*
/System.map
EOX
export GIT_INDEX_FILE=$S/tree.index
[ -f "$GIT_INDEX_FILE" ] || git read-tree base
wt() { git -c core.bare=false --work-tree="$TREE" "$@"; }
wt add -u -- .
wt ls-files -z -o --exclude-from="$S/artefacts.exclude" -- . |
	wt update-index -z --add --stdin
ref_tree=$(git write-tree)
unset GIT_INDEX_FILE
if [ "$am_tree" = "$ref_tree" ]; then
	echo "git am of the $n patches onto linux-source-6.1 ($version): identical to make tree"
else
	git diff --stat "$am_tree" "$ref_tree" >&2
	die "the series does not give the tree make tree prepares (above: series -> tree)"
fi

# 4. checkpatch --strict on each patch, as a patch
say "checkpatch.pl --strict on each patch"
cp_bad=0
: > "$results/series-checkpatch.txt"
for p in "$OUT"/*.patch; do
	case "$p" in */0000-*) continue ;; esac
	out=$(cd "$AM" && env -u GIT_DIR PATH="/usr/bin:/bin:$PATH" \
		perl scripts/checkpatch.pl --strict --show-types "$p" 2>&1 || true)
	# Every finding, but one: NOKPROBE_SYMBOL() must end the declaration
	# itself, as the tree's callers write it both with and without a
	# semicolon (make checkpatch makes the same exception).
	found=$(echo "$out" | python3 -c '
import re, sys
text = sys.stdin.read()
if "Traceback" in text:
    print(text)
for m in re.finditer(r"^(?:ERROR|WARNING|CHECK):.*?(?=\n\n|\Z)", text,
                     re.M | re.S):
    b = m.group(0)
    if b.startswith("WARNING:TRAILING_SEMICOLON:") and \
            "FILE: include/asm-generic/kprobes.h:" in b:
        continue
    print(b + "\n")
')
	if [ -n "$found" ]; then
		cp_bad=$((cp_bad + 1))
		{ echo "$(basename "$p"):"; echo "$found"; } | tee -a "$results/series-checkpatch.txt"
	fi
done
if [ "$cp_bad" = 0 ]; then
	echo "checkpatch --strict: all $n patches clean" | tee -a "$results/series-checkpatch.txt"
else
	echo "checkpatch --strict: $cp_bad of $n patches with findings (above)"
fi

# 5. Every step builds
steps_bad=0
if [ -n "${CHECK:-}" ] && [ "${CHECK:-0}" != 0 ]; then
	"$REPO/harness/series-check.sh" || steps_bad=1
	"$REPO/harness/docs.sh" || steps_bad=1
fi

# 6. The cover letter: harness/series-cover.txt, its placeholders filled
# (after CHECK=1, so that it has this run's step builds)
fill() {
	local f=$1 note=$2
	if [ -s "$f" ]; then cat "$f"; else echo "[[ LEAD: $note ]]"; fi
}
# Each result from this machine's runs, else as recorded in the repo
# (harness/results/, committed with the run that made it).
result() {
	if [ -s "$results/$1" ]; then echo "$results/$1"; else echo "$REPO/harness/results/$1"; fi
}
# The step table is only good for the series it was built from.
steps_txt=$S/steps-table.txt
: > "$steps_txt"
for steps in "$results/series-steps.txt" "$REPO/harness/results/series-steps.txt"; do
	if [ -s "$steps" ] && [ "$(head -n 1 "$steps")" = "series $(steps_id)" ]; then
		tail -n +2 "$steps" > "$steps_txt"
		break
	fi
done
python3 - "$OUT"/0000-cover-letter.patch "$REPO/harness/series-cover.txt" \
	"$version" \
	"$(fill "$(result check.txt)" "make check results here (or save its output as \$KPROBES_CACHE/results/check.txt)")" \
	"$(fill "$(result bench.txt)" "benchmark table here (or save it as \$KPROBES_CACHE/results/bench.txt)")" \
	"$(fill "$(result cross.txt)" "make cross results here (make cross saves them as \$KPROBES_CACHE/results/cross.txt)")" \
	"$(fill "$steps_txt" "make patches CHECK=1 results here")" <<'EOF'
import re, sys
path, tmpl, version, check, bench, cross, steps = sys.argv[1:]
text = open(tmpl).read()
text = '\n'.join(l for l in text.split('\n') if not l.startswith('#')).strip('\n')
subject, body = text.split('\n', 1)
subject = re.sub(r'^Subject:\s*', '', subject)
for k, v in (('VERSION', version), ('CHECK', check), ('BENCH', bench),
             ('CROSS', cross), ('STEPS', steps)):
    body = body.replace('@%s@' % k, v.rstrip('\n'))
c = open(path).read()
c = c.replace('*** SUBJECT HERE ***', subject, 1)
c = c.replace('*** BLURB HERE ***', body.strip('\n'), 1)
open(path, 'w').write(c)
EOF

echo "series: $n patches and a cover letter in:"
echo "$OUT"
[ "$cp_bad" = 0 ] && [ "$steps_bad" = 0 ]
