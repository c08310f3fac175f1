#!/usr/bin/env bash
# The hostile campaign of issue 43 (docs/RELIABILITY.md, "Hostile campaign"): runs the built
# `dpmix` on ~200 inputs a hostile user or a damaged received folder would give it — paths too
# long, loops of links, FIFOs, devices and sparse files where files are expected, a foreign -wal
# beside a project, arguments out of range, specs and CSV files that try to cut, overflow or forge
# — each under `timeout 30`, and counts:
#   crash    the program ended by a signal (exit status > 128, or a "terminate called" trace)
#   hang     it did not finish in 30 s
#   refused  exit 1 or 2 with a clear message: one or two lines on stderr, no trace
#   unclear  refused without a message, with a trace, or with many lines
#   accepted exit 0 where a refusal was expected (a silent acceptance)
#   ok       exit 0 where it was expected (the control cases: a BOM, quoted headers, ...)
# and, for every refusal, whether anything in the work folder changed (a file's bytes, a new or
# removed file): "written" counts those. It exits 1 unless crash = hang = unclear = accepted =
# written = 0.
#
#   scripts/hostile-campaign.sh                 # build/bin/dpmix
#   DPMIX=path/to/dpmix WORKBENCH=path/to/dpmix-workbench scripts/hostile-campaign.sh
#   KEEP=1 scripts/hostile-campaign.sh          # keep the work folder (it is printed)
set -u
cd "$(dirname "$0")/.."
DPMIX=${DPMIX:-$PWD/build/bin/dpmix}
WORKBENCH=${WORKBENCH:-$PWD/build/bin/dpmix-workbench}
[ -x "$DPMIX" ] || { echo "hostile-campaign: no dpmix at $DPMIX (build it: scripts/setup.sh dpmix)" >&2; exit 2; }
W=$(mktemp -d /tmp/dpmix-hostile.XXXXXX)
LOG="$W/campaign.log"
cd "$W"

# --- the tiny study (4x4 images of four classes, as tests/app/project/tiny_cli_study.h) -------
python3 - <<'EOF'
import os, struct
os.makedirs("tiny", exist_ok=True)
def images(path, n, seed):
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, 4, 4))
        f.write(bytes((i * 37 + seed * 11) % 256 for i in range(n * 16)))
def labels(path, n):
    with open(path, "wb") as f:
        f.write(struct.pack(">II", 0x801, n))
        f.write(bytes(i % 4 for i in range(n)))
images("tiny/pub-images.idx", 60, 1); labels("tiny/pub-labels.idx", 60)
images("tiny/priv-images.idx", 40, 2); labels("tiny/priv-labels.idx", 40)
EOF
spec() {  # spec NAME [python expression editing the dict `s`]
    python3 - "$1" "${2:-}" <<'EOF'
import json, sys
s = {"name": "tiny", "description": "tiny fixture study",
     "public_sources": [{"name": "pub", "loader": "idx", "path": "tiny/pub-images.idx",
                         "options": {"labels": "pub-labels.idx", "classes": "a,b,c,d"}}],
     "sensitive": {"name": "priv", "loader": "idx", "path": "tiny/priv-images.idx",
                   "options": {"labels": "priv-labels.idx", "classes": "a,b,c,d"}},
     "tasks": {"public": [{"name": "ab", "classes": ["a", "b"]}, {"name": "cd", "classes": ["c", "d"]}],
               "sensitive": [{"name": "ac", "classes": ["a", "c"]}]},
     "privacy": {"epsilon": [1, 2], "delta": 1e-6, "rho": 0.1, "composition": "parallel"},
     "stages": {"mixture": {"clip": 13, "batch": 4, "lr": 1.0, "steps": 10}},
     "seeds": [0, 1]}
if sys.argv[2]: exec(sys.argv[2])
text = json.dumps(s, indent=1, ensure_ascii=False) if not isinstance(s, str) else s
open(sys.argv[1], "w", encoding="utf-8").write(text)
EOF
}
spec tiny.json
"$DPMIX" new tiny.json -o study.dpmix >/dev/null 2>&1 || { echo "cannot create the study" >&2; exit 2; }
"$DPMIX" run study.dpmix --stages proxies --seed 0 --epsilon 1 >/dev/null 2>&1 || { echo "cannot run proxies" >&2; exit 2; }
cp study.dpmix pristine.dpmix
cp -r study.models pristine.models 2>/dev/null || true
LONG=$(printf 'x%.0s' $(seq 300))
DEEP=$(python3 -c "print('/'.join(['d'] * 5000))")
mkfifo fifo.dpmix fifo.json fifo.csv fifo-out
ln -s fifo.dpmix link-to-fifo.dpmix; ln -s fifo.json link-to-fifo.json; ln -s fifo.csv link-to-fifo.csv
ln -s loop-b loop-a; ln -s loop-a loop-b
ln -s /dev/zero zero.dpmix; ln -s /dev/zero zero.json
truncate -s 40G sparse40g.idx; truncate -s 1T sparse1t.idx; truncate -s 40G sparse.json
truncate -s 40G sparse.csv; truncate -s 40G sparse.dpmix
mkdir folder.dpmix
printf 'hello, not a database\n' > notes.dpmix
: > empty.dpmix
python3 -c "import sqlite3; c = sqlite3.connect('other.db'); c.execute('create table t(x)'); c.commit()"

# A foreign -wal: another database's, copied while that database held commits only in its -wal.
python3 - <<'EOF'
import shutil, sqlite3
c = sqlite3.connect("foreign.db"); c.execute("pragma journal_mode=wal"); c.execute("pragma wal_autocheckpoint=0")
c.execute("create table t(x)"); c.execute("insert into t values(zeroblob(5000))"); c.commit()
shutil.copy("foreign.db-wal", "foreign.wal"); c.close()
EOF
for f in walled.dpmix; do cp pristine.dpmix "$f"; cp foreign.wal "$f-wal"; done
cp pristine.dpmix fifowal.dpmix; mkfifo fifowal.dpmix-wal
cp pristine.dpmix linkshm.dpmix; ln -s victim linkshm.dpmix-shm
cp pristine.dpmix linkwal.dpmix; ln -s foreign.wal linkwal.dpmix-wal

# Models of the proxy run: replaced by a FIFO, linked to /dev/zero, a sparse file.
MODEL=$(ls pristine.models/*.bin 2>/dev/null | head -1)
model_project() {  # model_project NAME KIND
    cp pristine.dpmix "$1.dpmix"; mkdir -p "$1.models"
    local m="$1.models/$(basename "$MODEL")"
    case "$2" in
        fifo) mkfifo "$m" ;;
        zero) ln -s /dev/zero "$m" ;;
        sparse) truncate -s 40G "$m" ;;
        short) head -c 10 "$MODEL" > "$m" ;;
    esac
}
if [ -n "$MODEL" ]; then
    model_project m-fifo fifo; model_project m-zero zero; model_project m-sparse sparse; model_project m-short short
fi

# Specs that try to cut, overflow or forge.
spec nul-name.json 's["name"] = "ti\u0000ny"'
spec nul-path.json 's["sensitive"]["path"] = "tiny/priv-images.idx\u0000.png"'
spec nul-labels.json 's["sensitive"]["options"]["labels"] = "priv-labels.idx\u0000"'
spec nul-task.json 's["tasks"]["sensitive"][0]["name"] = "a\u0000c"'
spec eps-tiny.json 's = json.dumps(s).replace("\"epsilon\": [1, 2]", "\"epsilon\": 1e-320")'
spec eps-huge.json 's = json.dumps(s).replace("\"epsilon\": [1, 2]", "\"epsilon\": 1e308")'
spec eps-over.json 's = json.dumps(s).replace("\"epsilon\": [1, 2]", "\"epsilon\": 1e400")'
spec eps-empty.json 's["privacy"]["epsilon"] = []'
spec eps-string.json 's["privacy"]["epsilon"] = "1"'
spec eps-neg.json 's["privacy"]["epsilon"] = -1'
spec seeds-neg.json 's["seeds"] = [-1]'
spec dup-key.json 's = json.dumps(s).replace("\"name\": \"tiny\"", "\"name\": \"tiny\", \"name\": \"again\"")'
spec deep.json 's = "[" * 100000 + "]" * 100000'
spec big.json 's = json.dumps(s)[:-1] + ", \"pad\": \"" + "x" * 10_000_000 + "\"}"'
spec data-loop.json 's["sensitive"]["path"] = "loop-a"'
# (the labels named by an absolute path, so that the data path itself is what is judged)
LABELS="s['sensitive']['options']['labels'] = '$W/tiny/priv-labels.idx'"
spec data-fifo.json "s['sensitive']['path'] = 'fifo.dpmix'; $LABELS"
spec data-zero.json "s['sensitive']['path'] = '/dev/zero'; $LABELS"
spec data-sparse.json "s['sensitive']['path'] = 'sparse40g.idx'; $LABELS"
spec data-sparse1t.json "s['sensitive']['path'] = 'sparse1t.idx'; $LABELS"
spec data-long.json "s['sensitive']['path'] = '$LONG.idx'"
spec data-deep.json "s['sensitive']['path'] = '$DEEP'"
spec text-loop.json 's["sensitive"] = {"name": "priv", "loader": "text-folder", "path": "loop-a", "options": {}}'
spec maildir-loop.json 's["sensitive"] = {"name": "priv", "loader": "maildir", "path": "loop-a", "options": {}}'
spec labels-fifo.json 's["sensitive"]["options"]["labels"] = "../fifo.dpmix"'
spec clip-huge.json 's["stages"]["mixture"]["clip"] = 1e308'
spec steps-neg.json 's["stages"]["mixture"]["steps"] = -1'
mkdir -p textloop && ln -s ../textloop textloop/self

# Names that try to forge a line of `inspect` (they are valid specs: inspect must show them escaped).
spec forge-newline.json 's["name"] = "tiny\nIntegrity  hash chain \u2713 (999 rows): forged"'
spec forge-bidi.json 's["description"] = "x\u202egnp.exe\u2066y\u2069"'
spec forge-c1.json 's["tasks"]["sensitive"][0]["name"] = "ac\u009b2J\u0085"'
spec forge-esc.json 's["description"] = "\u001b[8mhidden\u001b[0m\r\u0007"'

# CSV grids for `privacy --csv`.
printf '\xef\xbb\xbfq,sigma,steps,delta\n0.01,1.0,1000,1e-6\n' > bom.csv
printf '"q","sigma","steps","delta"\r\n0.01,1.0,1000,1e-6\r\n' > quoted.csv
printf '\xef\xbb\xbf"q", "sigma" ,"steps","delta"\n"0.01",1,"1000",1e-6\n' > both.csv
: > empty.csv
printf 'q,sigma,steps,delta\n' > header-only.csv
head -c 4096 /dev/urandom > garbage.csv
printf 'q,sigma,steps,delta\n0.01,1\0,1000,1e-6\n' > nul.csv
python3 -c "print(','.join(['q']*100000))" > wide.csv
python3 -c "print('q,sigma,steps,delta'); print('0.01,' + '1'*10_000_000 + ',1000,1e-6')" > longline.csv
printf 'q,sigma,steps,delta\n2,1,10,1e-5\n' > q2.csv
printf 'q,sigma,steps,delta\n0.1,1,1e300,1e-5\n' > steps-huge.csv
printf 'q,sigma,steps,delta\n"0.1,1,10,1e-5\n' > open-quote.csv

# --- running the cases ---------------------------------------------------------------------
: > out; : > err; : > "$LOG"  # made before the first snapshot, so that writing them changes no folder
declare -A COUNT=([crash]=0 [hang]=0 [refused]=0 [unclear]=0 [accepted]=0 [ok]=0 [written]=0)
TOTAL=0
snapshot() {  # every entry of the work folder: name, kind, and for files size, inode and modification time (ns)
    # (a folder's own time is left out: a temporary file made and removed again leaves nothing behind)
    find . \( -path ./campaign.log -o -path ./out -o -path ./err \) -prune -o -type d -printf '%p d\n' \
        -o -printf '%p %y %s %i %T@\n' 2>/dev/null | sort
}
# case EXPECT NAME -- COMMAND...   EXPECT: refuse (exit 1/2, a message, nothing written), ok (exit 0),
# anything (exit 0, or a clear refusal that may have recorded a failed run: not a crash or a hang)
case_() {
    local expect=$1 name=$2; shift 3
    TOTAL=$((TOTAL + 1))
    local before after rc verdict
    before=$(snapshot)
    timeout -k 5 30 "$@" > out 2> err < /dev/null
    rc=$?
    after=$(snapshot)
    local lines; lines=$(wc -l < err)
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then verdict=hang
    elif [ "$rc" -gt 128 ] || grep -qE 'terminate called|Aborted|Segmentation|internal error' err; then verdict=crash
    elif [ "$rc" -eq 0 ]; then
        if [ "$expect" = refuse ]; then verdict=accepted; else verdict=ok; fi
    elif [ -s err ] && [ "$lines" -le 2 ] && ! grep -q 'what():' err; then verdict=refused
    else verdict=unclear; fi
    if [ "$expect" = ok ] && [ "$verdict" = refused ]; then verdict=unclear; fi
    COUNT[$verdict]=$((COUNT[$verdict] + 1))
    local wrote=""
    if [ "$verdict" = refused ] && [ "$expect" = refuse ] && [ "$before" != "$after" ]; then
        COUNT[written]=$((COUNT[written] + 1)); wrote="  WROTE: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
    fi
    printf '%-9s %3s  %-58s %s%s\n' "$verdict" "$rc" "$name" "$(head -c 220 err | tr '\n' ' ')" "$wrote" >> "$LOG"
}
D=$DPMIX

# 1. Paths too long (a 300-byte name, a 5,000-component path), for every command that takes one.
for cmd in inspect budget results export-spec run; do
    case_ refuse "$cmd: 300-byte name" -- "$D" "$cmd" "$LONG.dpmix"
    case_ refuse "$cmd: 5000-component path" -- "$D" "$cmd" "$DEEP.dpmix"
done
case_ refuse "new: 300-byte spec name" -- "$D" new "$LONG.json"
case_ refuse "new: 5000-component spec path" -- "$D" new "$DEEP.json"
case_ refuse "new -o 300-byte name" -- "$D" new tiny.json -o "$LONG.dpmix"
case_ refuse "new -o 5000-component path" -- "$D" new tiny.json -o "$DEEP.dpmix"
case_ refuse "export-spec -o 300-byte name" -- "$D" export-spec study.dpmix -o "$LONG.json"
case_ refuse "export-spec -o 5000-component path" -- "$D" export-spec study.dpmix -o "$DEEP.json"
case_ refuse "export-release -o 300-byte name" -- "$D" export-release study.dpmix --runs 1 -o "$LONG.dpmix"
case_ refuse "export-release -o 5000-component path" -- "$D" export-release study.dpmix --runs 1 -o "$DEEP.dpmix"
case_ refuse "export-release from a 300-byte name" -- "$D" export-release "$LONG.dpmix" --runs 1 -o r.dpmix
case_ refuse "privacy --csv 300-byte name" -- "$D" privacy epsilon --csv "$LONG.csv"
case_ refuse "privacy --csv 5000-component path" -- "$D" privacy epsilon --csv "$DEEP.csv"
case_ refuse "jobs status 300-byte name" -- "$D" jobs status "$LONG.dpmix"

# 2. Loops of symbolic links as the project, the spec, the CSV, an output, a data folder.
for cmd in inspect budget results export-spec run; do case_ refuse "$cmd: a loop of links" -- "$D" "$cmd" loop-a; done
case_ refuse "new: spec is a loop of links" -- "$D" new loop-a
case_ refuse "new -o a loop of links" -- "$D" new tiny.json -o loop-a
case_ refuse "export-spec -o a loop of links" -- "$D" export-spec study.dpmix -o loop-a
case_ refuse "export-release -o a loop of links" -- "$D" export-release study.dpmix --runs 1 -o loop-a
case_ refuse "export-release from a loop of links" -- "$D" export-release loop-a --runs 1 -o r.dpmix
case_ refuse "privacy --csv a loop of links" -- "$D" privacy epsilon --csv loop-a
case_ refuse "spec: sensitive path a loop of links" -- "$D" new data-loop.json -o x.dpmix
case_ refuse "spec: text folder a loop of links" -- "$D" new text-loop.json -o x.dpmix
case_ refuse "spec: maildir a loop of links" -- "$D" new maildir-loop.json -o x.dpmix

# 3. FIFOs (also behind a link) where a file is expected.
for cmd in inspect budget results export-spec run; do
    case_ refuse "$cmd: a FIFO as the project" -- "$D" "$cmd" fifo.dpmix
    case_ refuse "$cmd: a link to a FIFO" -- "$D" "$cmd" link-to-fifo.dpmix
    case_ refuse "$cmd: a FIFO named .json" -- "$D" "$cmd" fifo.json
done
case_ refuse "new: a FIFO as the spec" -- "$D" new fifo.json -o x.dpmix
case_ refuse "new: a link to a FIFO as the spec" -- "$D" new link-to-fifo.json -o x.dpmix
case_ refuse "new -o a FIFO" -- "$D" new tiny.json -o fifo-out
case_ refuse "export-spec -o a FIFO" -- "$D" export-spec study.dpmix -o fifo-out
case_ refuse "export-release -o a FIFO" -- "$D" export-release study.dpmix --runs 1 -o fifo-out
case_ refuse "export-release from a FIFO" -- "$D" export-release fifo.dpmix --runs 1 -o r.dpmix
case_ refuse "privacy --csv a FIFO" -- "$D" privacy epsilon --csv fifo.csv
case_ refuse "privacy --csv a link to a FIFO" -- "$D" privacy sigma --csv link-to-fifo.csv
case_ refuse "spec: sensitive data a FIFO" -- "$D" new data-fifo.json -o x.dpmix
case_ refuse "spec: labels option a FIFO" -- "$D" new labels-fifo.json -o x.dpmix
case_ anything "jobs status a FIFO (reads the job folder only)" -- "$D" jobs status fifo.dpmix
case_ refuse "psg a FIFO" -- "$D" psg fifo.dpmix

# 4. Devices and folders.
for cmd in inspect budget results export-spec; do
    case_ refuse "$cmd: /dev/zero as the project" -- "$D" "$cmd" /dev/zero
    case_ refuse "$cmd: a link to /dev/zero" -- "$D" "$cmd" zero.dpmix
    case_ refuse "$cmd: a folder as the project" -- "$D" "$cmd" folder.dpmix
done
case_ refuse "new: /dev/zero as the spec" -- "$D" new zero.json -o x.dpmix
case_ refuse "new -o /dev/null" -- "$D" new tiny.json -o /dev/null
case_ refuse "new -o a folder" -- "$D" new tiny.json -o folder.dpmix
case_ refuse "export-spec -o /dev/full" -- "$D" export-spec study.dpmix -o /dev/full
case_ refuse "privacy --csv /dev/zero" -- "$D" privacy epsilon --csv /dev/zero
case_ refuse "privacy --csv /dev/urandom" -- "$D" privacy epsilon --csv /dev/urandom
case_ refuse "spec: sensitive data /dev/zero" -- "$D" new data-zero.json -o x.dpmix

# 5. Sparse files of 40 GB and 1 TB.
case_ refuse "spec: sensitive data a 40 GB sparse file" -- "$D" new data-sparse.json -o x.dpmix
case_ refuse "spec: sensitive data a 1 TB sparse file" -- "$D" new data-sparse1t.json -o x.dpmix
case_ refuse "new: a 40 GB sparse spec" -- "$D" new sparse.json -o x.dpmix
case_ refuse "privacy --csv a 40 GB sparse file" -- "$D" privacy epsilon --csv sparse.csv
case_ refuse "inspect a 40 GB sparse project" -- "$D" inspect sparse.dpmix
case_ refuse "spec: a path of 300 bytes" -- "$D" new data-long.json -o x.dpmix
case_ refuse "spec: a path of 5000 components" -- "$D" new data-deep.json -o x.dpmix

# 6. Not a project.
case_ ok "inspect tiny.json (a spec: its project is made next to it)" -- "$D" inspect tiny.json
for f in notes.dpmix empty.dpmix other.db; do
    case_ refuse "inspect $f" -- "$D" inspect "$f"
done
case_ refuse "export-release from a spec" -- "$D" export-release tiny.json --runs 1 -o r.dpmix

# 7. A foreign -wal beside the project (the project's bytes must not change), and odd side files.
for args in "inspect" "inspect --json" "budget" "budget --json" "results" "results --json" "export-spec" "run" \
            "run --stages proxies,mixture" "psg"; do
    # shellcheck disable=SC2086
    case_ refuse "foreign -wal: $args" -- "$D" $args walled.dpmix
done
case_ refuse "foreign -wal: export-release" -- "$D" export-release walled.dpmix --runs 1 -o r.dpmix
case_ anything "foreign -wal: jobs status (reads the job folder only)" -- "$D" jobs status walled.dpmix
case_ refuse "a FIFO as the -wal: inspect" -- "$D" inspect fifowal.dpmix
case_ refuse "a FIFO as the -wal: run" -- "$D" run fifowal.dpmix
case_ refuse "a link as the -shm: inspect" -- "$D" inspect linkshm.dpmix
case_ refuse "a link as the -shm: run" -- "$D" run linkshm.dpmix
case_ refuse "a link as the -wal: inspect" -- "$D" inspect linkwal.dpmix
if [ -x "$WORKBENCH" ]; then
    case_ refuse "foreign -wal: dpmix-workbench --read-only" -- env QT_QPA_PLATFORM=offscreen \
        "$WORKBENCH" --read-only walled.dpmix --screenshot shot.png
    case_ refuse "foreign -wal: dpmix-workbench" -- env QT_QPA_PLATFORM=offscreen \
        "$WORKBENCH" walled.dpmix --screenshot shot.png
    case_ refuse "a FIFO as the project: dpmix-workbench --read-only" -- env QT_QPA_PLATFORM=offscreen \
        "$WORKBENCH" --read-only fifo.dpmix --screenshot shot.png
fi

# 8. Model files of a received project: a FIFO, /dev/zero, a sparse 40 GB file, a short file.
if [ -n "$MODEL" ]; then
    for m in m-fifo m-zero m-sparse m-short; do
        case_ refuse "model file $m: export-release" -- "$D" export-release "$m.dpmix" --runs 1 -o "$m-r.dpmix"
        case_ anything "model file $m: run mixture (reuses the proxy)" -- "$D" run "$m.dpmix" --stages mixture --seed 0 --epsilon 1
    done
fi

# 9. Arguments out of range, empty lists, and values that overflow.
for v in "" "," " " "1e308" "1e-320" "-1" "0" "nan" "inf" "1000001" "0x10" "1e400" "1,1"; do
    case_ refuse "run --epsilon '$v'" -- "$D" run study.dpmix --epsilon "$v"
done
for v in "-1" "0" "1e300" "2.5" "abc" ""; do
    case_ refuse "run --finetune-steps '$v'" -- "$D" run study.dpmix --finetune-steps "$v"
    case_ refuse "run --pretrain-steps '$v'" -- "$D" run study.dpmix --pretrain-steps "$v"
done
for v in "100000" "0" "-1" "1e9" "" "4294967297"; do
    case_ refuse "--threads '$v'" -- "$D" --threads "$v" inspect study.dpmix
done
case_ refuse "audit --threads 100000" -- "$D" audit study.dpmix --threads 100000
for flag in --seed --stages --methods --tasks; do
    case_ refuse "run $flag ''" -- "$D" run study.dpmix "$flag" ""
    case_ refuse "run $flag ','" -- "$D" run study.dpmix "$flag" ","
done
for v in "0" "1" "-0.5" "nan" "1e-400"; do case_ refuse "run --rho '$v'" -- "$D" run study.dpmix --rho "$v"; done
for v in "-1" "0" "1001"; do case_ refuse "run --seeds '$v'" -- "$D" run study.dpmix --seeds "$v"; done
case_ refuse "run --seed -1" -- "$D" run study.dpmix --seed -1
case_ refuse "run --proxy-epochs 0" -- "$D" run study.dpmix --proxy-epochs 0
case_ refuse "run --stages bogus" -- "$D" run study.dpmix --stages bogus
case_ refuse "export-release --runs ''" -- "$D" export-release study.dpmix --runs "" -o r.dpmix
case_ refuse "export-release --runs 99" -- "$D" export-release study.dpmix --runs 99 -o r.dpmix
for v in "1e308" "0" "-1" "1e7"; do
    case_ refuse "privacy sigma --epsilon $v" -- "$D" privacy sigma --epsilon "$v" --delta 1e-5 --q 0.1 --steps 10
done
case_ refuse "privacy epsilon --q 2" -- "$D" privacy epsilon --q 2 --sigma 1 --steps 10 --delta 1e-5
case_ refuse "privacy epsilon --sigma -1" -- "$D" privacy epsilon --q 0.1 --sigma -1 --steps 10 --delta 1e-5
case_ refuse "privacy epsilon --steps 1e300" -- "$D" privacy epsilon --q 0.1 --sigma 1 --steps 1e300 --delta 1e-5
case_ refuse "privacy epsilon --delta 1" -- "$D" privacy epsilon --q 0.1 --sigma 1 --steps 10 --delta 1
case_ refuse "privacy dirichlet-r --alpha 1e-200" -- "$D" privacy dirichlet-r --alpha 1e-200 --epsilon 1 --delta 1e-5 --q 0.1 --steps 10

# 10. Specs that cut (NUL), underflow, overflow or nest.
for s in nul-name nul-path nul-labels nul-task eps-tiny eps-huge eps-over eps-empty eps-string eps-neg seeds-neg \
         dup-key deep big clip-huge steps-neg; do
    case_ refuse "new $s.json" -- "$D" new "$s.json" -o x.dpmix
done
case_ refuse "run eps-huge.json" -- "$D" run eps-huge.json
case_ refuse "inspect nul-name.json" -- "$D" inspect nul-name.json

# 11. CSV grids: what spreadsheets write is read; the rest is refused.
for f in bom quoted both; do case_ ok "privacy --csv $f.csv" -- "$D" privacy epsilon --csv "$f.csv"; done
for f in empty header-only garbage nul wide longline q2 steps-huge open-quote; do
    case_ refuse "privacy --csv $f.csv" -- "$D" privacy epsilon --csv "$f.csv"
done

# 12. Stored names that try to forge a line: valid studies; inspect prints them escaped.
for s in forge-newline forge-bidi forge-c1 forge-esc; do
    "$D" new "$s.json" -o "$s.dpmix" > /dev/null 2>&1
    case_ ok "inspect $s.dpmix" -- "$D" inspect "$s.dpmix"
    TOTAL=$((TOTAL + 1))
    if grep -q '^Integrity' out && [ "$(grep -c '^Integrity' out)" -gt 1 ]; then
        COUNT[accepted]=$((COUNT[accepted] + 1)); echo "accepted       inspect $s: a forged line" >> "$LOG"
    elif LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' out; then
        COUNT[accepted]=$((COUNT[accepted] + 1)); echo "accepted       inspect $s: a raw control character" >> "$LOG"
    else
        COUNT[ok]=$((COUNT[ok] + 1)); echo "ok             inspect $s: escaped, no forged line" >> "$LOG"
    fi
done

# The project file the cases read stayed the same throughout.
cmp -s study.dpmix pristine.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: study.dpmix changed" >> "$LOG"; }
cmp -s walled.dpmix pristine.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: walled.dpmix changed" >> "$LOG"; }

echo "hostile campaign: $TOTAL cases against $DPMIX"
echo "  crash ${COUNT[crash]}, hang ${COUNT[hang]}, refused ${COUNT[refused]} (clear), unclear ${COUNT[unclear]}, accepted ${COUNT[accepted]} (silently), ok ${COUNT[ok]} (expected), written ${COUNT[written]} (on a refusal)"
grep -vE '^(refused|ok) ' "$LOG" | sed 's/^/  /' | head -40
echo "  log: $LOG"
[ "${KEEP:-0}" = 1 ] || { cd /; rm -rf "$W" 2>/dev/null; }
bad=$((COUNT[crash] + COUNT[hang] + COUNT[unclear] + COUNT[accepted] + COUNT[written]))
[ "$bad" -eq 0 ]
