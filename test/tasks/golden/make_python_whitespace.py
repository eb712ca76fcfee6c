# Lists the code points Python's str.isspace() accepts, and strip() / rstrip() of a few strings,
# to check src/python-whitespace.ts. Run: /usr/bin/python3 test/tasks/golden/make_python_whitespace.py
import json, os
cases = ["  a b  ", "\x1c\x1dx\x1e\x1f", "\ufeffx\ufeff", "\u0085y\u00a0", "\n\nThe answer.\n\nMore", "", " \t\r\n", "x\u3000", "\u200bz\u200b"]
out = {
    "isspace": [c for c in range(0x110000) if chr(c).isspace()],
    "cases": [{"s": s, "strip": s.strip(), "rstrip": s.rstrip()} for s in cases],
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_whitespace.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=True, indent=1)
