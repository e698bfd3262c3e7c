#!/usr/bin/env python3
"""Writes the fenced code blocks of one language from READMEs to files, one block a file, so the
package tests run a README's examples exactly as written (scripts/test-package.sh).

    readme-examples.py LANG OUT_DIR README...

Each block becomes OUT_DIR/<readme's directory and name>-L<line>.<LANG>; the paths are printed,
one a line. A README without a block of LANG is an error: its examples were meant to be run.
"""
import re
import sys
from pathlib import Path

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def blocks(text: str, lang: str):
    """(line of the opening fence, code) of each block fenced as LANG."""
    for found in FENCE.finditer(text):
        if found.group(1) == lang:
            yield text.count("\n", 0, found.start()) + 1, found.group(2)


def main(lang: str, out_dir: str, readmes: list) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for readme in map(Path, readmes):
        found = list(blocks(readme.read_text(), lang))
        if not found:
            sys.exit(f"readme-examples: {readme} has no ```{lang} block")
        stem = "-".join(readme.with_suffix("").parts).replace(".", "_")
        for line, code in found:
            path = out / f"{stem}-L{line}.{lang}"
            path.write_text(code)
            print(path)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
