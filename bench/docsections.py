"""docs/BENCHMARKS.md holds the output of several reports (W1 by
bench/report.py, the Gremlin server experiment by bench/aster/report.py).
Each report owns the text between its markers

    <!-- begin: NAME (written by SCRIPT) -->
    ...
    <!-- end: NAME -->

and rewrites only that; whatever else the file holds is kept as it is.
A report that owns the top of the file (W1) passes the text outside any
other report's markers as its own, unmarked."""

import re

MARK = re.compile(r"<!-- begin: (\S+) .*?-->\n.*?<!-- end: \1 -->\n?", re.S)


def sections(text: str) -> dict:
    """The marked sections of `text`, by name, markers included."""
    return {m.group(1): m.group(0) for m in MARK.finditer(text)}


def replace(text: str, name: str, script: str, body: str) -> str:
    """`text` with section `name` holding `body` (appended at the end if it
    was not there)."""
    block = f"<!-- begin: {name} (written by {script}) -->\n{body.rstrip()}\n<!-- end: {name} -->\n"
    old = sections(text).get(name)
    if old is not None:
        return text.replace(old, block)
    return text.rstrip("\n") + "\n\n" + block


def others(text: str) -> str:
    """Every marked section of `text`, in order, for a report that rewrites
    everything else."""
    return "\n".join(sections(text).values())
