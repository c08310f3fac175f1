#!/usr/bin/env python3
"""Converts one unpacked Debian text package into a dpmix JSONL text domain.

Used by scripts/fetch-data.sh. Output: one {"text": ..., "domain": ...} object per line, in a
deterministic order (sorted paths / file order), stopping once --cap bytes of text are written.
Kinds:
  dictd     <where> is the dictd base path (X.index + X.dict.dz): one document per headword entry.
  fortunes  <where> is a folder of fortune files: one document per %-separated fortune.
  files     <where> is a folder: one document per regular file (.gz files are decompressed),
            optionally only names ending with --suffix;
            binary files (NUL bytes) and the fortune .dat indexes are skipped.
Text that is not UTF-8 is decoded as Latin-1 (old dictionary and man page sources), so every
document written is valid UTF-8.
"""
import argparse
import gzip
import json
import os
import sys

MAX_DOC_BYTES = 200_000  # a single huge file would eat the whole cap of its domain


def decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def dictd_number(text: str) -> int:
    value = 0
    for ch in text:
        value = value * 64 + B64.index(ch)
    return value


def dictd_documents(base: str):
    with gzip.open(base + ".dict.dz", "rb") as f:  # .dz is gzip with a random-access table
        body = f.read()
    seen = set()
    with open(base + ".index", "rb") as f:
        for line in f:
            parts = line.rstrip(b"\n").split(b"\t")
            if len(parts) < 3:
                continue
            word = decode(parts[0])
            if word.startswith("00-database"):
                continue  # dictd's metadata entries, not dictionary text
            offset, length = dictd_number(parts[1].decode()), dictd_number(parts[2].decode())
            if (offset, length) in seen:
                continue  # several headwords can point at the same definition
            seen.add((offset, length))
            yield decode(body[offset:offset + length]).strip()


def fortune_documents(folder: str):
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".dat") or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            text = decode(f.read())
        for block in text.split("\n%\n"):
            block = block.strip().strip("%").strip()
            if block:
                yield block


def file_documents(folder: str, suffix: str = ""):
    paths = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path) and os.path.isfile(path) and name.endswith(suffix):
                paths.append(path)
    for path in sorted(paths):
        with open(path, "rb") as f:
            raw = f.read()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        if b"\0" in raw or not raw.strip() or len(raw) > MAX_DOC_BYTES:
            continue
        yield decode(raw)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", required=True, choices=["dictd", "fortunes", "files"])
    parser.add_argument("--domain", required=True)
    parser.add_argument("--cap", type=int, required=True, help="bytes of text per domain")
    parser.add_argument("--out", required=True)
    parser.add_argument("--suffix", default="", help="files kind: only names ending so")
    parser.add_argument("where")
    args = parser.parse_args()

    if args.kind == "dictd":
        source = dictd_documents(args.where)
    elif args.kind == "fortunes":
        source = fortune_documents(args.where)
    else:
        source = file_documents(args.where, args.suffix)
    written, count = 0, 0
    with open(args.out, "w", encoding="utf-8") as out:
        for text in source:
            if written >= args.cap:
                break
            out.write(json.dumps({"text": text, "domain": args.domain}, ensure_ascii=False))
            out.write("\n")
            written += len(text.encode("utf-8"))
            count += 1
    if count == 0:
        print(f"no documents found under {args.where}", file=sys.stderr)
        return 1
    print(f"{args.domain}: {count} documents, {written} bytes of text", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
