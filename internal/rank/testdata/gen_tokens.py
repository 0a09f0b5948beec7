"""Regenerates tokens.json: the darwin-memo tokeniser as Python runs it.

Run with CPython 3 (`python3 gen_tokens.py > tokens.json`). The oracle is
written from semantics §4.1 (lower(), findall of [a-z0-9.*]+, stopwords,
then the trailing-s stem); the Go test checks Tokens against its output,
so Python's own str.lower() decides every non-ASCII case.
"""
import json
import random
import re

STOP = set("""a an and are as at be by for from has have in is it of on or that the
this these those to was were will with what which who how when where why does do
under over after before during between within against but if then than so may might
must should could would""".split())


def oracle(text):
    out = []
    for tok in re.findall(r"[a-z0-9.*]+", text.lower()):
        if tok in STOP:
            continue
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        if tok not in out:
            out.append(tok)
    return out


FIXED = [
    "",
    "Does the files' cache-miss.log exist?",
    "THIS IS A TEST of Tokens",
    "ands ors thes wills uses bus gas class glass process's",
    "v1.2.3 go.mod *.go a*b ... .. . * ** 3.14s",
    "K\u212aelvin \u212a \u212as",
    "\u0130stanbul \u0130 I\u0130I xx\u0130yy",
    "Stra\u00dfe \u00c9COLE na\u00efve caf\u00e9s \u00dcBER",
    "\u03a3\u0399\u03a3\u03a5\u03a6\u039f\u03a3 \u0391\u0392\u0393",
    "fi\ufb01le \uff21\uff22\uff23 \uff11\uff12 \u2160\u2161",
    "emoji \U0001f600 test\U0001f600ing tabs\tand\nnewlines\r\n",
    "snake_case kebab-case path/to/file.go it's don't",
    "tests testss sss ssss s ss asks",
    "Retry the flaky TestFoo with -count=1; use GOFLAGS=-mod=mod and go test ./...",
]

ALPHABET = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.*-_/' \t\n") + [
    "\u212a", "\u0130", "\u00df", "\u00e9", "\u0307", "\u03a3", "\u0131", "\u017f",
    "\u1e9e", "\uff21", "\u2126", "\u212b", "\U0001f600", "s", "ss", "the ", " is ",
]
WORDS = sorted(STOP) + ["tests", "class", "bus", "files", "Cache", "MISS", "go.mod", "v1.2"]

rng = random.Random(20261122)
cases = list(FIXED)
for _ in range(300):
    parts = []
    for _ in range(rng.randrange(0, 30)):
        if rng.random() < 0.3:
            parts.append(rng.choice(WORDS))
            parts.append(" ")
        else:
            parts.append(rng.choice(ALPHABET))
    cases.append("".join(parts))

print(json.dumps([{"text": t, "tokens": oracle(t)} for t in cases], indent=1, ensure_ascii=True))
