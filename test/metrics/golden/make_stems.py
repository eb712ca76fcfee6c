#!/usr/bin/python3
"""Writes stems_extra.tsv: `word<TAB>stem` from NLTK 3.8's PorterStemmer() (default NLTK_EXTENSIONS mode).

Run with Debian's Python, which has nltk:  /usr/bin/python3 test/metrics/golden/make_stems.py
The words are (1) every distinct ASCII word, case kept, of a few license texts that every Debian
machine has, and (2) generated words: random letter stems (fixed seed) followed by every suffix the
Porter rules look at, so that each rule and each condition is exercised, plus NLTK's irregular forms
in several cases and some one- and two-letter words.
"""
import os
import random
import re
import sys

import nltk
from nltk.stem.porter import PorterStemmer

LICENSE_FILES = [
    "/usr/share/common-licenses/GPL-3",
    "/usr/share/common-licenses/Apache-2.0",
    "/usr/share/common-licenses/MPL-2.0",
    "/usr/share/common-licenses/Artistic",
]

SUFFIXES = [
    "", "s", "ss", "sses", "ies", "ied", "eed", "ed", "ing", "ated", "bled", "ized", "ating", "bling",
    "izing", "y", "ly", "ily", "ational", "tional", "enci", "anci", "izer", "bli", "abli", "alli",
    "entli", "eli", "ousli", "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness",
    "aliti", "iviti", "biliti", "fulli", "logi", "logy", "icate", "ative", "alize", "iciti", "ical",
    "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "sion", "tion", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "lled", "lling",
    "ttle", "pping", "zzed", "ssing", "ally", "fully", "ologies", "ically", "ations", "nesses",
]
IRREGULAR = ["sky", "skies", "dying", "lying", "tying", "news", "innings", "inning", "outings",
             "outing", "cannings", "canning", "howe", "proceed", "exceed", "succeed"]


def license_words():
    words = set()
    for path in LICENSE_FILES:
        with open(path, encoding="utf-8") as f:
            words.update(re.findall(r"[A-Za-z0-9]+", f.read()))
    return words


def generated_words():
    rng = random.Random(20261130)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vowels_heavy = "aeiouy"
    words = set()
    for suffix in SUFFIXES:
        for _ in range(40):
            length = rng.randint(1, 6)
            stem = "".join(rng.choice(vowels_heavy if rng.random() < 0.4 else letters) for _ in range(length))
            words.add(stem + suffix)
    for w in IRREGULAR:
        words.update([w, w.capitalize(), w.upper()])
    words.update(["a", "I", "is", "as", "by", "ed", "Ox", "at", "ies", "ied", "dies", "died", "DIES",
                  "spied", "flies", "ties", "yes", "y", "yy", "yyy", "eyed", "ay"])
    return words


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stems_extra.tsv")
    stemmer = PorterStemmer()
    words = sorted(license_words() | generated_words())
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"# NLTK {nltk.__version__} PorterStemmer() (NLTK_EXTENSIONS); made by make_stems.py\n")
        for w in words:
            f.write(f"{w}\t{stemmer.stem(w)}\n")
    print(f"wrote {len(words)} words to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
