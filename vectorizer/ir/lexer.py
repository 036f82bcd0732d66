"""Tokenizer for LLVM assembly as LLVM 22 prints it.

One master regular expression; whitespace and comments are dropped, line
breaks are kept as `NL` tokens because LLVM's printed form is line-structured
(declarations, instructions and metadata nodes each end at a line break).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import NamedTuple

__all__ = ["Token", "tokenize", "unescape", "NL", "LABEL", "LOCAL", "GLOBAL", "META", "ATTRGRP", "DBG",
           "COMDAT", "CSTR", "STR", "FLOAT", "INT", "KW", "DOTS", "PUNCT", "EOF"]

NL = "nl"
LABEL = "label"
LOCAL = "local"
GLOBAL = "global"
META = "meta"
ATTRGRP = "attrgrp"
DBG = "dbg"
COMDAT = "comdat"
CSTR = "cstr"
STR = "str"
FLOAT = "float"
INT = "int"
KW = "kw"
DOTS = "dots"
PUNCT = "punct"
EOF = "eof"

_ID_CHARS = r"[-A-Za-z$._0-9]"

# No capture groups: `findall` then returns the token strings at C speed and
# each is classified by its first (and last) character, which is several
# times faster than asking the regex engine which alternative matched.
_TOKEN_RE = re.compile(
    rf"""
    [ \t\r]*(?:
     \n
    |;[^\n]*
    |[%@]"[^"]*"
    |[%@$]{_ID_CHARS}+
    |!"[^"]*"
    |![-A-Za-z$._0-9\\]*
    |\#dbg_[A-Za-z_]+
    |\#\d+
    |c"[^"]*"
    |"[^"]*":?
    |0x[KLMHR]?[0-9A-Fa-f]+
    |[-+]?\d+\.\d*(?:[eE][-+]?\d+)?
    |-?\d+:?
    |\.\.\.
    |[-A-Za-z$._]{_ID_CHARS}*:?
    |.
    |$)
    """,
    re.VERBOSE,
)

_FIRST: dict[str, str] = {"%": LOCAL, "@": GLOBAL, "$": COMDAT, "!": META, "\n": NL}
for _c in "0123456789":
    _FIRST[_c] = INT
_FIRST[";"] = "skip"


class Token(NamedTuple):
    """A token: kind, source text, start offset."""

    kind: str
    text: str
    start: int


# The token lists of the last few texts: a campaign vectorizes one kernel at
# several widths, dimensions and choices, and each run parses the same input
# (and the same prepared module) again. Tokens are immutable and the parser
# only reads the list, so one list can serve every parse of a text.
_RECENT: dict[str, list[Token]] = {}
_RECENT_MAX = 4


def tokenize(src: str) -> list[Token]:
    """All tokens of `src` (without whitespace/comments), ending with EOF.
    The list is shared between calls with the same text: do not modify it."""
    hit = _RECENT.get(src)
    if hit is not None:
        return hit
    out = _tokenize(src)
    if len(_RECENT) >= _RECENT_MAX:
        del _RECENT[next(iter(_RECENT))]
    _RECENT[src] = out
    return out


# Each piece `findall` returns -> (kind, text without its leading blanks,
# number of those blanks). The kind is a function of the piece alone, and
# most pieces recur (types, keywords, punctuation, value names), so each is
# classified once; the table is emptied when it grows past `_PIECES_MAX`.
_PIECES: dict[str, tuple[str, str, int]] = {}
_PIECES_MAX = 100_000


def _classify(s: str) -> tuple[str, str, int]:
    """(kind, text, leading blanks) of one piece ("skip": a comment or nothing)."""
    lead = 0
    n = len(s)
    c = s[0] if n else ";"
    if c == " " or c == "\t" or c == "\r":
        # Leading blanks are part of the piece (fewer pieces to loop over).
        t = s.lstrip(" \t\r")
        lead = n - len(t)
        s = t
        n = len(s)
        c = s[0] if n else ";"
    k = _FIRST.get(c)
    if k is None:
        if c == '"':
            k = LABEL if s[-1] == ":" else STR
        elif c == "#":
            k = DBG if s.startswith("#dbg") else ATTRGRP
        elif c == "c" and n > 1 and s[1] == '"':
            k = CSTR
        elif (c == "-" or c == "+") and n > 1 and s[1].isdigit():
            k = LABEL if s[-1] == ":" else (FLOAT if "." in s else INT)
        elif s == "...":
            k = DOTS
        elif c.isalpha() or c in "_.$-":
            k = LABEL if s[-1] == ":" and n > 1 else KW
        else:
            k = PUNCT
    elif k is INT:
        if s[-1] == ":":
            k = LABEL
        elif n > 1 and (s[1] == "x" or "." in s):
            k = FLOAT
    return k, s, lead


def _tokenize(src: str) -> list[Token]:
    pieces = _PIECES
    if len(pieces) > _PIECES_MAX:
        pieces.clear()
    found = _TOKEN_RE.findall(src)
    # The steps that can iterate in C do (`map`, `accumulate`): this visits
    # every token of every module the pipeline reads.
    kinds = list(map(pieces.get, found))
    if None in kinds:
        for i, got in enumerate(kinds):
            if got is None:
                s = found[i]
                got = pieces.get(s)
                kinds[i] = got if got is not None else pieces.setdefault(s, _classify(s))
    new = tuple.__new__
    out = [new(Token, (k, t, pos + lead))
           for (k, t, lead), pos in zip(kinds, accumulate(map(len, found), initial=0), strict=False) if k != "skip"]
    out.append(Token(EOF, "", len(src)))
    return out


_ESC = re.compile(r"\\([0-9A-Fa-f]{2}|\\)")


def unescape(s: str) -> str:
    """Decode LLVM's `\\XX` escapes in a quoted name or string body."""
    if "\\" not in s:
        return s
    out = bytearray()
    i = 0
    b = s.encode("utf-8", "surrogateescape")
    n = len(b)
    while i < n:
        c = b[i]
        if c == 0x5C and i + 1 < n:
            if b[i + 1] == 0x5C:
                out.append(0x5C)
                i += 2
                continue
            if i + 2 < n:
                try:
                    out.append(int(b[i + 1 : i + 3], 16))
                    i += 3
                    continue
                except ValueError:
                    pass
        out.append(c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def unescape_bytes(s: str) -> bytes:
    """Decode a `c"..."` body to bytes."""
    out = bytearray()
    b = s.encode("utf-8", "surrogateescape")
    i = 0
    n = len(b)
    while i < n:
        c = b[i]
        if c == 0x5C and i + 1 < n:
            if b[i + 1] == 0x5C:
                out.append(0x5C)
                i += 2
                continue
            try:
                out.append(int(b[i + 1 : i + 3], 16))
                i += 3
                continue
            except ValueError:
                pass
        out.append(c)
        i += 1
    return bytes(out)
