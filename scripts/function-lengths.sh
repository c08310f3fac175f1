#!/usr/bin/env bash
# Functions longer than a limit (default 80 lines, declaration to closing brace), from Universal
# Ctags' end lines; lambdas count inside the function that holds them.
set -euo pipefail
limit=${1:-80}; shift || true
folders=("${@:-engine app widgets bench}")
cd "$(dirname "$0")/.."
ctags -R --languages=C++ --kinds-C++=f --fields=+ne --output-format=json -o - ${folders[@]} 2>/dev/null |
python3 -c '
import json, sys
limit = int(sys.argv[1]); over = []
for line in sys.stdin:
    t = json.loads(line)
    if t.get("_type") != "tag" or "end" not in t or t["name"].startswith("__anon"): continue
    n = t["end"] - t["line"] + 1
    if n > limit: over.append((n, t["path"], t["line"], t.get("scope", "") + "::" + t["name"] if t.get("scope") else t["name"]))
for n, p, l, name in sorted(over, reverse=True): print(f"{n:5d}  {p}:{l}  {name}")
print(f"{len(over)} functions over {limit} lines", file=sys.stderr)
sys.exit(1 if over else 0)
' "$limit"
