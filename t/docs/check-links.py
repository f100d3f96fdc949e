#!/usr/bin/env python3
"""Every relative link in the project's Markdown resolves: the file exists
and, for FILE#anchor or #anchor, a heading of that file has that anchor
(GitHub's rule: lower case, punctuation other than '-' and '_' dropped,
spaces to '-'). Prints one line per broken link; exit 1 if any."""
import os
import re
import sys

LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*```')


def anchors(path):
    out, seen, fenced = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        text = re.sub(r'`', '', m.group(1)).strip().lower()
        slug = re.sub(r'[^\w\- ]', '', text).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else '%s-%d' % (slug, n))
    return out


def links(path):
    fenced = False
    for no, line in enumerate(open(path, encoding='utf-8'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(line):
            yield no, m.group(1) or m.group(2)


def main(root, files):
    bad = 0
    for f in files:
        path = os.path.join(root, f)
        for no, target in links(path):
            if re.match(r'^[a-z]+:', target):  # http:, mailto:
                continue
            file, _, frag = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                print('%s:%d: %s: no such file' % (f, no, target))
                bad += 1
            elif frag and dest.endswith('.md') and frag not in anchors(dest):
                print('%s:%d: %s: no heading with that anchor in %s' %
                      (f, no, target, os.path.relpath(dest, root)))
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2:]))
