#!/usr/bin/env python3
"""Generate the kprobes patch series from the repo's current files.

Called by harness/series.sh, which prepares the inputs.  Reads
harness/series.txt (one entry per patch) and harness/series-cover.txt,
builds one commit per entry on top of the pristine base commit with git
plumbing (no work tree is touched), and writes the series with
`git format-patch` into the output directory.

How a file grows over the series, with nothing maintained by hand:

 * A file of ours appears in the patch that lists it under "Files:", in
   its final form except for code under "#ifdef CONFIG_X" (or #if/#elif
   on it) where a later patch lists CONFIG_X under "Config:": unifdef
   takes that code out (keeping the #else side) until that patch.  Such
   a step is the final code built with the later feature configured off.
 * A base file changed by harness/patches gets the hunks assigned to the
   patches so far ("Hunks:"), applied to the pristine file in the order
   prepare-tree.sh applies them.
 * In Makefiles next to our files, a line that names an object or a
   directory of ours (or of the stock implementation) whose source is not
   in the tree at that step is left out, and so is an ifdef/endif left
   empty by that; in MAINTAINERS, so is an "F:" line naming such a path.
   The line appears with the patch that brings the source.
 * The stock kprobes files go in the patch that says "Removes: stock".

At the last step every file is in its final form, and the result is the
tree that prepare-tree.sh makes: series.sh checks that with `git am`.
"""

import argparse
import os
import re
import subprocess
import sys

SOURCE_EXT = ('.c', '.h', '.S')


def die(msg):
    sys.stderr.write('error: %s\n' % msg)
    sys.exit(1)


def git(args, gitdir, inp=None, env=None):
    e = dict(os.environ)
    e['GIT_DIR'] = gitdir
    if env:
        e.update(env)
    r = subprocess.run(['git'] + args, input=inp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=e)
    if r.returncode != 0:
        die('git %s: %s' % (' '.join(args), r.stderr.decode(errors='replace')))
    return r.stdout


# ---------------------------------------------------------------- series.txt

class Entry:
    def __init__(self, n, subject, lineno):
        self.n = n
        self.subject = subject
        self.lineno = lineno
        self.files = []
        self.hunks = []
        self.configs = []
        self.removes = False
        self.body = []


def parse_series(path):
    entries = []
    cur = None
    in_headers = False
    last_key = None
    for lineno, raw in enumerate(open(path, encoding='utf-8'), 1):
        line = raw.rstrip('\n')
        if line.startswith('#'):
            continue
        m = re.match(r'^Subject:\s*(.*)$', line)
        if m:
            cur = Entry(len(entries) + 1, m.group(1).strip(), lineno)
            entries.append(cur)
            in_headers = True
            continue
        if cur is None:
            if line.strip():
                die('%s:%d: text before the first "Subject:"' % (path, lineno))
            continue
        if in_headers:
            if not line.strip():
                in_headers = False
                continue
            m = re.match(r'^(Files|Hunks|Config|Removes):\s*(.*)$', line)
            if m:
                key, val = m.group(1), m.group(2).split()
                last_key = key
            elif line.startswith((' ', '\t')) and last_key:
                key, val = last_key, line.split()
            else:
                die('%s:%d: unknown header line: %s' % (path, lineno, line))
            if key == 'Files':
                cur.files += val
            elif key == 'Hunks':
                cur.hunks += val
            elif key == 'Config':
                cur.configs += val
            elif key == 'Removes':
                if val != ['stock']:
                    die('%s:%d: "Removes:" takes "stock"' % (path, lineno))
                cur.removes = True
            continue
        cur.body.append(line)
    for e in entries:
        while e.body and not e.body[-1].strip():
            e.body.pop()
        while e.body and not e.body[0].strip():
            e.body.pop(0)
    return entries


# ---------------------------------------------------------- harness/patches

class Hunk:
    def __init__(self, patch, path, idx, header, lines):
        self.patch = patch
        self.path = path
        self.idx = idx          # 1-based among this file's hunks in this patch
        self.header = header
        self.lines = lines
        m = re.match(r'^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@', header)
        self.old_start = int(m.group(1))
        self.old = [l[1:] for l in lines if l[:1] in (' ', '-')]
        self.new = [l[1:] for l in lines if l[:1] in (' ', '+')]

    def name(self):
        return '%s:%s#%d' % (self.patch, self.path, self.idx)


def parse_patch(path):
    name = os.path.basename(path)
    lines = open(path, encoding='utf-8').read().split('\n')
    hunks = []
    i = 0
    cur = None
    count = {}
    while i < len(lines):
        l = lines[i]
        if l.startswith('--- ') and i + 1 < len(lines) and lines[i + 1].startswith('+++ '):
            p = lines[i + 1][4:].split('\t')[0].strip()
            if p.startswith('b/'):
                p = p[2:]
            cur = p
            i += 2
            continue
        m = re.match(r'^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@', l)
        if m and cur:
            nold = int(m.group(1)) if m.group(1) is not None else 1
            nnew = int(m.group(2)) if m.group(2) is not None else 1
            body = []
            i += 1
            while (nold > 0 or nnew > 0) and i < len(lines):
                b = lines[i]
                if b.startswith('\\'):
                    i += 1
                    continue
                c = b[:1] if b else ' '
                if c == ' ':
                    nold -= 1
                    nnew -= 1
                elif c == '-':
                    nold -= 1
                elif c == '+':
                    nnew -= 1
                else:
                    die('%s: malformed hunk near line %d' % (name, i + 1))
                body.append(b if b else ' ')
                i += 1
            count[cur] = count.get(cur, 0) + 1
            hunks.append(Hunk(name, cur, count[cur], l, body))
            continue
        i += 1
    return hunks


def apply_hunks(text, hunks, what):
    """Apply hunks (in order) to text; exact context, any offset."""
    lines = text.split('\n')
    offset = 0
    for h in hunks:
        want = h.old_start - 1 + offset
        n = len(h.old)
        found = None
        for d in range(0, len(lines) + 1):
            for pos in (want - d, want + d):
                if 0 <= pos <= len(lines) - n and lines[pos:pos + n] == h.old:
                    found = pos
                    break
            if found is not None:
                break
        if found is None:
            die('%s: hunk %s does not apply' % (what, h.name()))
        lines[found:found + n] = h.new
        offset = found - (h.old_start - 1) + len(h.new) - n
    return '\n'.join(lines)


# --------------------------------------------------------------- the steps

class Series:
    def __init__(self, args):
        self.repo = args.repo
        self.gitdir = args.git_dir
        self.base = args.base
        self.ours = [l for l in open(args.ours).read().split('\n') if l]
        self.stock = set(l for l in open(args.stock).read().split('\n') if l)
        self.entries = parse_series(args.series)
        self.patches = sorted(
            os.path.join(args.repo, 'harness/patches', f)
            for f in os.listdir(os.path.join(args.repo, 'harness/patches'))
            if f.endswith('.patch'))
        self.hunks = []
        for p in self.patches:
            self.hunks += parse_patch(p)
        self.base_files = set(
            git(['ls-tree', '-r', '--name-only', '-z', self.base],
                self.gitdir).decode().split('\0')) - {''}
        self.check_assignments()

    def check_assignments(self):
        errs = []
        self.intro = {}         # our file -> step
        for e in self.entries:
            for f in e.files:
                if f not in self.ours:
                    errs.append('%s (patch %d) is not a file of ours' % (f, e.n))
                elif f in self.intro:
                    errs.append('%s is in patches %d and %d' % (f, self.intro[f], e.n))
                else:
                    self.intro[f] = e.n
        for f in self.ours:
            if f not in self.intro:
                errs.append('%s is in no patch: add it to a "Files:" line of harness/series.txt' % f)
        self.hunk_step = {}
        for e in self.entries:
            for spec in e.hunks:
                m = re.match(r'^([^:#]+)(?::([^#]+))?(?:#(\d+))?$', spec)
                if not m:
                    errs.append('bad hunk reference %s (patch %d)' % (spec, e.n))
                    continue
                pname, path, idx = m.group(1), m.group(2), m.group(3)
                sel = [h for h in self.hunks if h.patch == pname and
                       (path is None or h.path == path) and
                       (idx is None or h.idx == int(idx))]
                if not sel:
                    errs.append('%s (patch %d) names no hunk of harness/patches' % (spec, e.n))
                for h in sel:
                    if h.name() in self.hunk_step:
                        errs.append('hunk %s is in patches %d and %d' %
                                    (h.name(), self.hunk_step[h.name()], e.n))
                    self.hunk_step[h.name()] = e.n
        for h in self.hunks:
            if h.name() not in self.hunk_step:
                errs.append('hunk %s is in no patch: add it to a "Hunks:" line of harness/series.txt' % h.name())
        self.config_step = {}
        for e in self.entries:
            for c in e.configs:
                if c in self.config_step:
                    errs.append('%s is introduced by patches %d and %d' %
                                (c, self.config_step[c], e.n))
                self.config_step[c] = e.n
        removes = [e.n for e in self.entries if e.removes]
        if len(removes) != 1:
            errs.append('exactly one patch must say "Removes: stock"')
        else:
            self.removal = removes[0]
        for e in self.entries:
            if not e.body:
                errs.append('patch %d (%s) has no commit message' % (e.n, e.subject))
            for l in e.body:
                if len(l) > 75:
                    errs.append('patch %d: commit message line over 75 columns: %s' % (e.n, l))
            if len(e.subject) > 75:
                errs.append('patch %d: subject over 75 columns' % e.n)
        if errs:
            die('harness/series.txt:\n  ' + '\n  '.join(errs))

    # Which paths exist at step k
    def exists(self, p, k):
        if p in self.intro:
            return self.intro[p] <= k
        if p in self.stock and k >= self.removal:
            return False
        return p in self.base_files

    def managed(self, p):
        return p in self.intro or p in self.stock

    def dir_exists(self, d, k):
        pre = d.rstrip('/') + '/'
        if any(p.startswith(pre) and self.exists(p, k) for p in self.intro):
            return True
        return any(p.startswith(pre) and self.exists(p, k) for p in self.base_files
                   if p.startswith(pre))

    def dir_managed(self, d):
        pre = d.rstrip('/') + '/'
        return any(p.startswith(pre) for p in list(self.intro) + list(self.stock))

    def filter_makefile(self, path, text, k):
        d = os.path.dirname(path)
        kept = []               # (original index, line)
        lines = text.split('\n')
        for i, line in enumerate(lines):
            drop = False
            if not line.lstrip().startswith('#'):
                for m in re.finditer(r'(?:\b[A-Z][A-Z0-9_]*_)?\b([a-z0-9][\w\-]*)\.o\b', line):
                    srcs = [os.path.join(d, m.group(1) + x) for x in ('.c', '.S')]
                    if any(self.managed(s) for s in srcs) and \
                            not any(self.exists(s, k) for s in srcs):
                        drop = True
                for m in re.finditer(r'(?:^|\s)([\w\-]+)/(?=\s|$)', line):
                    sub = os.path.join(d, m.group(1))
                    mk = [sub + '/Makefile', sub + '/Kbuild']
                    if any(self.managed(s) for s in mk) and \
                            not any(self.exists(s, k) for s in mk):
                        drop = True
            if not drop:
                kept.append((i, line))
        # An ifdef ... endif whose whole content was left out goes too.
        res = []
        for i, line in kept:
            if re.match(r'^endif\b', line) and res and \
                    re.match(r'^(ifdef|ifndef|ifeq|ifneq)\b', res[-1][1]) and \
                    i - res[-1][0] > 1:
                res.pop()
                continue
            res.append((i, line))
        return '\n'.join(line for i, line in res)

    def filter_maintainers(self, text, k):
        out = []
        for line in text.split('\n'):
            m = re.match(r'^F:\t(\S+)$', line)
            if m:
                p = m.group(1)
                if self.managed(p) and not self.exists(p, k):
                    continue
                if not self.managed(p) and self.dir_managed(p) and \
                        not self.dir_exists(p, k):
                    continue
            out.append(line)
        return '\n'.join(out)

    def unifdef(self, path, text, k):
        later = sorted(c for c, s in self.config_step.items() if s > k)
        if not later or not path.endswith(SOURCE_EXT) or \
                not any(c in text for c in later):
            return text
        cmd = ['unifdef', '-t'] if path.endswith('.S') else ['unifdef']
        for c in later:
            cmd += ['-U' + c]
        r = subprocess.run(cmd, input=text.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode not in (0, 1):
            die('unifdef %s: %s' % (path, r.stderr.decode()))
        if r.returncode == 0:
            return text
        # What unifdef leaves where a block went: two blank lines in a
        # row, a blank line after an opening or before a closing brace.
        out = []
        for line in r.stdout.decode().split('\n'):
            if line.strip() in ('}', '};') and out and not out[-1].strip():
                out.pop()
            if not line.strip() and out and \
                    (not out[-1].strip() or out[-1].rstrip().endswith('{')):
                continue
            out.append(line)
        return '\n'.join(out)

    def read_base(self, p):
        return git(['cat-file', 'blob', '%s:%s' % (self.base, p)],
                   self.gitdir).decode('utf-8', errors='surrogateescape')

    def state(self, k):
        """{path: (mode, text) or None} for every path the series touches."""
        st = {}
        for p in self.stock:
            if k >= self.removal and p not in self.intro:
                st[p] = None
        for p, s in self.intro.items():
            if s > k:
                if p in self.base_files and k >= self.removal:
                    st[p] = None
                continue
            full = os.path.join(self.repo, p)
            text = open(full, encoding='utf-8', errors='surrogateescape').read()
            mode = '100755' if os.access(full, os.X_OK) else '100644'
            st[p] = (mode, text)
        # base files with hunks
        by_file = {}
        for h in self.hunks:
            by_file.setdefault(h.path, []).append(h)
        for p, hs in by_file.items():
            sel = [h for h in hs if self.hunk_step[h.name()] <= k]
            if p not in self.base_files:
                die('harness/patches change %s, which the base tree lacks' % p)
            st[p] = ('base', apply_hunks(self.read_base(p), sel, p))
        # Makefiles next to managed paths, and MAINTAINERS
        cands = set(['MAINTAINERS'])
        for p in list(self.intro) + list(self.stock):
            d = os.path.dirname(p)
            for dd in (d, os.path.dirname(d)):
                for mk in ('Makefile', 'Kbuild'):
                    cands.add(os.path.join(dd, mk))
        for p in sorted(cands):
            if p in st:
                if st[p] is None:
                    continue
                mode, text = st[p]
            elif p in self.base_files and self.exists(p, k):
                mode, text = 'base', self.read_base(p)
            else:
                continue
            if p == 'MAINTAINERS':
                text = self.filter_maintainers(text, k)
            else:
                text = self.filter_makefile(p, text, k)
            st[p] = (mode, text)
        for p, v in list(st.items()):
            if v is not None and p in self.intro:
                st[p] = (v[0], self.unifdef(p, v[1], k))
        return st

    def build(self, author, date):
        env = {'GIT_INDEX_FILE': os.path.join(self.gitdir, 'series.index'),
               'GIT_AUTHOR_NAME': author[0], 'GIT_AUTHOR_EMAIL': author[1],
               'GIT_COMMITTER_NAME': author[0], 'GIT_COMMITTER_EMAIL': author[1],
               'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date}
        git(['read-tree', self.base], self.gitdir, env=env)
        base_modes = {}
        parent = git(['rev-parse', self.base + '^{commit}'], self.gitdir).decode().strip()
        commits = []
        blobs = {}
        for e in self.entries:
            st = self.state(e.n)
            info = []
            for p in sorted(st):
                v = st[p]
                if v is None:
                    info.append('0 %s\t%s' % ('0' * 40, p))
                    continue
                mode, text = v
                if mode == 'base':
                    if p not in base_modes:
                        base_modes[p] = git(['ls-tree', self.base, '--', p],
                                            self.gitdir).decode().split()[0]
                    mode = base_modes[p]
                data = text.encode('utf-8', errors='surrogateescape')
                if data not in blobs:
                    blobs[data] = git(['hash-object', '-w', '--stdin'], self.gitdir,
                                      inp=data).decode().strip()
                info.append('%s %s\t%s' % (mode, blobs[data], p))
            git(['update-index', '--index-info'], self.gitdir,
                inp=('\n'.join(info) + '\n').encode(), env=env)
            tree = git(['write-tree'], self.gitdir, env=env).decode().strip()
            msg = e.subject + '\n\n' + '\n'.join(e.body) + '\n\n' + \
                'Signed-off-by: %s <%s>\n' % author
            parent = git(['commit-tree', tree, '-p', parent], self.gitdir,
                         inp=msg.encode(), env=env).decode().strip()
            commits.append(parent)
        return commits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repo', required=True)
    ap.add_argument('--git-dir', required=True)
    ap.add_argument('--base', required=True)
    ap.add_argument('--ours', required=True)
    ap.add_argument('--stock', required=True)
    ap.add_argument('--series', required=True)
    ap.add_argument('--author', required=True)
    ap.add_argument('--date', required=True)
    ap.add_argument('--list', action='store_true',
                    help='print "N<TAB>subject" for each patch and exit')
    a = ap.parse_args()
    s = Series(a)
    if a.list:
        for e in s.entries:
            print('%d\t%s' % (e.n, e.subject))
        return
    m = re.match(r'^(.*) <(.*)>$', a.author)
    commits = s.build((m.group(1), m.group(2)), a.date)
    print(commits[-1])


if __name__ == '__main__':
    main()
