#!/usr/bin/env bash
# The hostile campaign of issue 43 (docs/RELIABILITY.md, "Hostile campaign"): runs the built
# `dpmix` on ~370 inputs a hostile user or a damaged received folder would give it — paths too
# long, loops of links, FIFOs, devices and sparse files where files are expected, a foreign -wal
# beside a project, arguments out of range, specs and CSV files that try to cut, overflow or forge,
# tampered projects and releases, signatures and key files abused — each under `timeout 30`, and
# counts:
#   crash    the program ended by a signal (exit status > 128, or a "terminate called" trace)
#   hang     it did not finish in 30 s
#   refused  exit 1 or 2 with a clear message: one or two lines on stderr, no trace (a tampering
#            case: exit 1 or 2 and the problem named in what it printed)
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
# The owner's signing key and the budget store of this campaign, never the user's.
export DPMIX_KEY_DIR="$W/keys" DPMIX_BUDGET_STORE="$W/budget.sqlite"

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


# --- tampering and signatures (docs/PROJECT_FILE.md, "Tamper evidence") ---------------------
# A study with a DP release (run mixture), a signed release of it, a signed copy of the project,
# and the owner's key; then copies edited as a tamperer would: with sqlite3 alone, or also
# recomputing the chain and the seal from the documented formulas (reseal).
"$DPMIX" new tiny.json -o dp.dpmix >/dev/null 2>&1 &&
    "$DPMIX" run dp.dpmix --stages proxies,mixture --seed 0 --epsilon 1 >/dev/null 2>&1 ||
    { echo "cannot run the DP study" >&2; exit 2; }
sql1() { python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$@"; }
DPRUN=$(sql1 dp.dpmix "select id from runs where method = 'dp-mixmin' and status = 'done' order by id limit 1")
LASTRUN=$(sql1 dp.dpmix "select max(id) from runs")
"$DPMIX" export-release dp.dpmix --runs "$DPRUN" -o release.dpmix >/dev/null 2>&1 || { echo "cannot export" >&2; exit 2; }
cp dp.dpmix signed.dpmix; cp -r dp.models signed.models 2>/dev/null || true
"$DPMIX" sign signed.dpmix >/dev/null 2>&1 || { echo "cannot sign" >&2; exit 2; }
cp keys/owner.pub owner.pub
cp release.dpmix r-original.dpmix; cp signed.dpmix s-original.dpmix
mkdir other-keys && DPMIX_KEY_DIR="$W/other-keys" "$DPMIX" keys init >/dev/null 2>&1
reseal() {  # recompute every row_hash and the seal of $1 (docs/PROJECT_FILE.md, "Hash chain", `seal`)
    python3 - "$1" <<'EOF'
import hashlib, json, sqlite3, sys
T = {"spec": "id spec_json created_at created_by",
     "sources": "id role name loader path options_json user_level kind examples users label_names_json domains_json channels height width content_hash",
     "runs": "id method task epsilon seed config_json build_version created_at",
     "ledgers": "id run_id recorded_at ledger_json recorded_epsilon recorded_delta",
     "lambdas": "id run_id kind names_json values_json", "metrics": "id run_id name class_name value",
     "curves": "id run_id name step value",
     "audits": "id run_id name false_positives false_negatives negatives positives delta confidence epsilon_lower_bound details_json",
     "logs": "id run_id at level message", "models": "id run_id name content_hash file_name bytes",
     "release": "id manifest_json", "run_transitions": "id run_id status at message"}
F = lambda t, b: t.encode() + str(len(b)).encode() + b":" + b
def v(x):
    if x is None: return F("N", b"")
    if isinstance(x, int): return F("I", str(x).encode())
    if isinstance(x, float): return F("R", b"%.17g" % x)
    return F("T", x.encode())
h = lambda p, t, row: hashlib.sha256(b"dpmix-row/1\n" + F("P", p.encode()) + F("S", t.encode()) + b"".join(map(v, row))).hexdigest()
db = sqlite3.connect(sys.argv[1]); have = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
tables = {}
for t, cols in T.items():
    if t not in have: continue
    p = "0" * 64
    for row in db.execute(f"select {','.join(cols.split())} from {t} order by id").fetchall():
        p = h(p, t, row); db.execute(f"update {t} set row_hash=? where id=?", (p, row[0]))
    tables[t] = {"head": p, "rows": db.execute(f"select count(*) from {t}").fetchone()[0]}
r = "0" * 64
for row in db.execute("select id,status,started_at,finished_at,message from runs order by id").fetchall(): r = h(r, "runs-state", row)
state = json.dumps({"runs": r, "tables": tables}, separators=(",", ":"), sort_keys=True)
if "seal" in have:
    db.execute("insert or replace into seal(id,state_json,seal_hash) values(1,?,?)", (state, hashlib.sha256(("dpmix-seal/1\n" + state).encode()).hexdigest()))
db.commit()
EOF
}
tamper() {  # tamper NAME FROM SQL [reseal]: a copy of FROM.dpmix (and its models) with SQL run on it
    cp "$2.dpmix" "$1.dpmix"; cp -r "$2.models" "$1.models" 2>/dev/null || true
    # (@DEEP@ stands for JSON nested 200,000 deep: too long for an argument)
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2].replace('@DEEP@', '[' * 200000)); c.commit()" "$1.dpmix" "$3" ||
        echo "tamper $1: the edit failed" >&2
    [ "${4:-}" = reseal ] && reseal "$1.dpmix"
    return 0
}
LEDGER="(select max(id) from ledgers where run_id = $DPRUN)"
# ε: the entry's ε and the recorded total a tenth of what they were; σ: doubled (ε left as it was).
EPS_EDIT="update ledgers set ledger_json = json_replace(ledger_json, '\$.entries[0].epsilon', json_extract(ledger_json, '\$.entries[0].epsilon') / 10), recorded_epsilon = recorded_epsilon / 10 where id = $LEDGER;"
SIGMA_EDIT="update ledgers set ledger_json = json_replace(ledger_json, '\$.entries[0].sigma', json_extract(ledger_json, '\$.entries[0].sigma') * 2) where id = $LEDGER;"
DELETE_LAST=""
for t in ledgers lambdas metrics curves audits logs models run_transitions; do DELETE_LAST+="delete from $t where run_id = $LASTRUN; "; done
DELETE_LAST+="delete from runs where id = $LASTRUN;"
tamper t-eps dp "$EPS_EDIT"
tamper t-eps-resealed dp "$EPS_EDIT" reseal
tamper t-sigma-resealed dp "$SIGMA_EDIT" reseal
tamper t-status dp "update runs set status = 'cancelled' where id = $DPRUN;"
tamper t-status-resealed dp "update runs set status = 'cancelled' where id = $DPRUN;" reseal
tamper t-deleted-last dp "$DELETE_LAST"
tamper t-metric dp "update metrics set value = value / 2 where id = (select min(id) from metrics);"
tamper t-spec dp "update spec set spec_json = replace(spec_json, 'tiny', 'tinY');"
tamper t-seal-row dp "delete from seal;"
tamper t-seal-table dp "drop table seal;"
tamper t-transitions-table dp "drop table run_transitions;"
tamper t-transition-row dp "delete from run_transitions where id = (select max(id) from run_transitions);"
tamper t-seal-deep dp "update seal set state_json = '@DEEP@';"
tamper t-seal-types dp "update seal set state_json = '{\"tables\": {\"runs\": {\"rows\": \"many\", \"head\": 7}}, \"runs\": []}';"
tamper t-ledger-deep dp "update ledgers set ledger_json = '@DEEP@' where id = $LEDGER;" reseal
tamper t-model-row dp "update models set content_hash = 'f' || substr(content_hash, 2) where id = (select min(id) from models);" reseal
# Signed files edited: the release by one byte (a letter of its method, the schema's text), its
# signature rows; the signed project resealed after an edit, and after deleting its last run.
python3 - <<'EOF'
data = bytearray(open("release.dpmix", "rb").read())
at = data.rfind(b"dp-mixmin"); data[at + 8] ^= 0x01; open("r-byte.dpmix", "wb").write(data)
data = bytearray(open("release.dpmix", "rb").read())
at = data.find(b"CHECK(id = 1)"); data[at + 11] = ord("2"); open("r-schema.dpmix", "wb").write(data)
EOF
tamper r-sigrow release "delete from signatures;"
tamper r-sighex release "update signatures set signature = 'ff' || substr(signature, 3);"
tamper r-signedat release "update signatures set signed_at = '2020-01-01T00:00:00.000Z';"
tamper r-sigkey release "update signatures set public_key = '$(cut -d' ' -f2 other-keys/owner.pub)';"
tamper r-resealed release "update metrics set value = 0.99 where id = (select min(id) from metrics);" reseal
tamper r-manifest release "update release set manifest_json = replace(manifest_json, '\"runs\"', '\"runs\" ');" reseal
tamper r-sigtable release "drop table signatures;"
tamper s-resealed signed "$EPS_EDIT" reseal
tamper s-deleted-resealed signed "$DELETE_LAST" reseal
tamper s-model-row signed "update models set content_hash = 'f' || substr(content_hash, 2) where id = (select min(id) from models);" reseal
tamper s-owner signed "update runs set owner_host = 'elsewhere' where id = $DPRUN;"
# Key files: public keys cut, mistyped, of another kind; secret keys readable by others, damaged.
PUB=$(cat owner.pub)
printf '%s' "${PUB:0:30}" > pub-truncated.pub
printf 'dpmix-ed25519 %s\n' "$(cut -d' ' -f2 owner.pub | cut -c1-63)" > pub-63hex.pub
printf 'dpmix-ed25519 %s\n' "$(cut -d' ' -f2 owner.pub | tr '0-9' 'g-p')" > pub-nothex.pub
printf 'ssh-ed25519 %s\n' "$(cut -d' ' -f2 owner.pub)" > pub-othertag.pub
printf '%s extra\n' "$PUB" > pub-extra.pub
: > pub-empty.pub
head -c 10000000 /dev/zero | tr '\0' 'a' > pub-huge.pub
head -c 64 /dev/urandom > pub-binary.pub
mkfifo pub-fifo.pub; ln -s pub-fifo.pub pub-link-fifo.pub; ln -s /dev/zero pub-zero.pub; mkdir pub-folder.pub
key_dir() {  # key_dir NAME EDIT: a copy of the owner's key folder with EDIT run inside it
    mkdir -p "$1"; cp -p keys/owner.key keys/owner.pub "$1/"; (cd "$1" && eval "$2")
}
key_dir k-0644 "chmod 644 owner.key"
key_dir k-0640 "chmod 640 owner.key"
key_dir k-truncated "head -c 40 owner.key > x; mv x owner.key; chmod 600 owner.key"
key_dir k-garbage "head -c 200 /dev/urandom > owner.key; chmod 600 owner.key"
key_dir k-huge "head -c 5000000 /dev/zero > owner.key; chmod 600 owner.key"
key_dir k-fifo "rm owner.key; mkfifo -m 600 owner.key"
key_dir k-zero "rm owner.key; ln -s /dev/zero owner.key"
key_dir k-folder "rm owner.key; mkdir -m 700 owner.key"
key_dir k-loop "rm owner.key; ln -s owner.key owner.key"
mkdir k-empty
: > k-file

# --- running the cases ---------------------------------------------------------------------
: > out; : > err; : > "$LOG"  # made before the first snapshot, so that writing them changes no folder
declare -A COUNT=([crash]=0 [hang]=0 [refused]=0 [unclear]=0 [accepted]=0 [ok]=0 [written]=0)
TOTAL=0
snapshot() {  # every entry of the work folder: name, kind, and for files size, inode and modification time (ns)
    # (a folder's own time is left out: a temporary file made and removed again leaves nothing behind)
    find . \( -path ./campaign.log -o -path ./out -o -path ./err \) -prune -o -type d -printf '%p d\n' \
        -o -printf '%p %y %s %i %T@\n' 2>/dev/null | sort
}
# observe_ COMMAND...: runs it under `timeout 30` with out/err captured, sets rc, `before` and
# `after` (the snapshot around it) and `verdict` to hang or crash when it was one (else empty).
observe_() {
    before=$(snapshot)
    timeout -k 5 30 "$@" > out 2> err < /dev/null
    rc=$?
    after=$(snapshot)
    verdict=""
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then verdict=hang
    elif [ "$rc" -gt 128 ] || grep -qE 'terminate called|Aborted|Segmentation|internal error' err; then verdict=crash; fi
}
# written_: the first lines of what changed on disk, for the log (run in $(...): the caller counts).
written_() {
    echo "  WROTE: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ')"
}
# case EXPECT NAME -- COMMAND...   EXPECT: refuse (exit 1/2, a message, nothing written), ok (exit 0),
# anything (exit 0, or a clear refusal that may have recorded a failed run: not a crash or a hang)
case_() {
    local expect=$1 name=$2; shift 3
    TOTAL=$((TOTAL + 1))
    local before after rc verdict
    observe_ "$@"
    local lines; lines=$(wc -l < err)
    if [ -n "$verdict" ]; then :
    elif [ "$rc" -eq 0 ]; then
        if [ "$expect" = refuse ]; then verdict=accepted; else verdict=ok; fi
    elif [ -s err ] && [ "$lines" -le 2 ] && ! grep -q 'what():' err; then verdict=refused
    else verdict=unclear; fi
    if [ "$expect" = ok ] && [ "$verdict" = refused ]; then verdict=unclear; fi
    COUNT[$verdict]=$((COUNT[$verdict] + 1))
    local wrote=""
    if [ "$verdict" = refused ] && [ "$expect" = refuse ] && [ "$before" != "$after" ]; then
        COUNT[written]=$((COUNT[written] + 1)); wrote=$(written_)
    fi
    printf '%-9s %3s  %-58s %s%s\n' "$verdict" "$rc" "$name" "$(head -c 220 err | tr '\n' ' ')" "$wrote" >> "$LOG"
}
# detect NAME PATTERN -- COMMAND...: a tampered file or a bad key reported (exit 1 or 2, PATTERN in
# what it printed), nothing written; exit 0 is a silent acceptance.
detect_() {
    local name=$1 pattern=$2; shift 3
    TOTAL=$((TOTAL + 1))
    local before after rc verdict
    observe_ "$@"
    if [ -n "$verdict" ]; then :
    elif [ "$rc" -eq 0 ]; then verdict=accepted
    elif grep -qE -- "$pattern" out err && ! grep -q 'what():' err; then verdict=refused
    else verdict=unclear; fi
    COUNT[$verdict]=$((COUNT[$verdict] + 1))
    local wrote=""
    if [ "$before" != "$after" ]; then
        COUNT[written]=$((COUNT[written] + 1)); wrote=$(written_)
    fi
    printf '%-9s %3s  %-58s %s%s\n' "$verdict" "$rc" "$name" "$(cat out err | grep -E -m1 -- "$pattern" | head -c 200)" "$wrote" >> "$LOG"
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


# 13. Tampering: each edit reported by every reading command (exit 1, "✗" or ALTERED), the file unchanged.
for t in t-eps t-eps-resealed t-sigma-resealed t-status t-status-resealed t-deleted-last t-metric t-spec t-seal-row \
         t-seal-table t-transitions-table t-transition-row t-seal-deep t-seal-types t-ledger-deep; do
    for cmd in inspect budget results; do detect_ "$cmd $t" '✗|ALTERED|cannot' -- "$D" "$cmd" "$t.dpmix"; done
done
# A model row's hash edited and resealed: the commands that hash the model files find it (budget
# and results never read them: docs/PROJECT_FILE.md, "Tamper evidence").
detect_ "inspect t-model-row" '✗|ALTERED' -- "$D" inspect t-model-row.dpmix
detect_ "verify s-model-row" 'NOT VERIFIED' -- "$D" verify s-model-row.dpmix --key owner.pub
for t in t-eps-resealed t-status t-deleted-last t-seal-deep; do
    detect_ "inspect --json $t" '"ok": false|ALTERED' -- "$D" inspect --json "$t.dpmix"
    detect_ "sign $t (an altered file is never signed)" 'not signed|altered|cannot' -- "$D" sign "$t.dpmix"
    detect_ "export-release from $t" 'intact|altered|✗' -- "$D" export-release "$t.dpmix" --runs "$DPRUN" -o "x-$t.dpmix"
done

# 14. Signatures: a signed release verifies unchanged; edited by one byte, or its signature rows,
# or resealed, it does not; a signed project edited and resealed, or its last run deleted, does not.
case_ ok "verify release.dpmix (unchanged)" -- "$D" verify release.dpmix --key owner.pub
case_ ok "verify signed.dpmix (unchanged)" -- "$D" verify signed.dpmix --key owner.pub
for r in r-byte r-schema r-sigrow r-sighex r-signedat r-sigkey r-resealed r-manifest r-sigtable s-resealed \
         s-deleted-resealed s-owner t-eps-resealed t-deleted-last; do
    detect_ "verify $r" 'NOT VERIFIED' -- "$D" verify "$r.dpmix" --key owner.pub
done
detect_ "verify with another owner's key" 'no signature by' -- "$D" verify release.dpmix --key other-keys/owner.pub
detect_ "verify an unsigned project" 'not signed at all' -- "$D" verify dp.dpmix --key owner.pub
for k in pub-truncated pub-63hex pub-nothex pub-othertag pub-extra pub-empty pub-huge pub-binary pub-fifo \
         pub-link-fifo pub-zero pub-folder; do
    detect_ "verify --key $k" 'NOT VERIFIED' -- "$D" verify release.dpmix --key "$k.pub"
done
detect_ "verify --key missing" 'NOT VERIFIED' -- "$D" verify release.dpmix --key missing.pub
detect_ "verify --key the secret key" 'NOT VERIFIED' -- "$D" verify release.dpmix --key keys/owner.key
detect_ "verify --key a loop of links" 'NOT VERIFIED' -- "$D" verify release.dpmix --key loop-a
detect_ "verify --key 300-byte name" 'NOT VERIFIED' -- "$D" verify release.dpmix --key "$LONG.pub"
detect_ "verify --key 5000-component path" 'NOT VERIFIED' -- "$D" verify release.dpmix --key "$DEEP.pub"
for f in fifo.dpmix link-to-fifo.dpmix zero.dpmix folder.dpmix notes.dpmix missing.dpmix walled.dpmix sparse.dpmix; do
    detect_ "verify $f" 'NOT VERIFIED' -- "$D" verify "$f" --key owner.pub
done
case_ refuse "verify without --key" -- "$D" verify release.dpmix

# 15. The owner's key: made once, never replaced; refused when others can read it or it is damaged,
# before anything is written (sign, export-release).
case_ refuse "keys init over an existing key" -- "$D" keys init
case_ refuse "keys init --dir a file" -- "$D" keys init --dir k-file
case_ refuse "keys init --dir a FIFO" -- "$D" keys init --dir fifo.json
case_ refuse "keys init --dir under a file" -- "$D" keys init --dir k-file/keys
case_ refuse "keys init --dir /dev/null" -- "$D" keys init --dir /dev/null
case_ refuse "keys init --dir 300-byte name" -- "$D" keys init --dir "$LONG"
case_ refuse "keys init --dir a loop of links" -- "$D" keys init --dir loop-a
case_ refuse "keys show --dir without a key" -- "$D" keys show --dir k-empty
case_ refuse "keys show --dir missing" -- "$D" keys show --dir no-such-folder
for k in k-0644 k-0640 k-truncated k-garbage k-huge k-fifo k-zero k-folder k-loop; do
    case_ refuse "keys show --dir $k" -- "$D" keys show --dir "$k"
    case_ refuse "sign with $k" -- env DPMIX_KEY_DIR="$W/$k" "$D" sign dp.dpmix
    case_ refuse "export-release with $k" -- env DPMIX_KEY_DIR="$W/$k" "$D" export-release dp.dpmix --runs "$DPRUN" -o "x-$k.dpmix"
done
case_ refuse "export-release with DPMIX_KEY_DIR a file" -- env DPMIX_KEY_DIR="$W/k-file" "$D" export-release dp.dpmix --runs "$DPRUN" -o x-kf.dpmix
case_ refuse "export-release with DPMIX_KEY_DIR a FIFO" -- env DPMIX_KEY_DIR="$W/fifo.json" "$D" export-release dp.dpmix --runs "$DPRUN" -o x-kff.dpmix
case_ refuse "sign a release" -- "$D" sign release.dpmix
for f in fifo.dpmix zero.dpmix folder.dpmix notes.dpmix missing.dpmix walled.dpmix loop-a "$LONG.dpmix"; do
    case_ refuse "sign ${f:0:40}" -- "$D" sign "$f"
done

# The project file the cases read stayed the same throughout.
cmp -s study.dpmix pristine.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: study.dpmix changed" >> "$LOG"; }
cmp -s walled.dpmix pristine.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: walled.dpmix changed" >> "$LOG"; }
cmp -s release.dpmix r-original.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: release.dpmix changed" >> "$LOG"; }
cmp -s signed.dpmix s-original.dpmix || { COUNT[written]=$((COUNT[written] + 1)); echo "WRITTEN: signed.dpmix changed" >> "$LOG"; }

echo "hostile campaign: $TOTAL cases against $DPMIX"
echo "  crash ${COUNT[crash]}, hang ${COUNT[hang]}, refused ${COUNT[refused]} (clear), unclear ${COUNT[unclear]}, accepted ${COUNT[accepted]} (silently), ok ${COUNT[ok]} (expected), written ${COUNT[written]} (on a refusal)"
grep -vE '^(refused|ok) ' "$LOG" | sed 's/^/  /' | head -40
echo "  log: $LOG"
[ "${KEEP:-0}" = 1 ] || { cd /; rm -rf "$W" 2>/dev/null; }
bad=$((COUNT[crash] + COUNT[hang] + COUNT[unclear] + COUNT[accepted] + COUNT[written]))
[ "$bad" -eq 0 ]
