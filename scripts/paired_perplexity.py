#!/usr/bin/env python3
"""Paired differences in test perplexity, baseline - DP-MixMin, per cell of a text regime map.

Input: one or more `dpmix run ... --json` outputs of a text study (each holding one seed's runs,
or several), grouped into cells. A cell is LABEL=FILE[,FILE...][@EPSILON][+ri:FILE[,FILE...]]:
the runs of the named files at that epsilon (default: every epsilon found, one cell each).
`+ri:` takes Random Init's runs from other files (Random Init does not depend on pretraining,
so a run at another pretraining length pairs by seed). A cell can also be given as literal
per-seed values: LABEL=values:dp-mixmin=a/b/c,uniform=a/b/c,random-init=a/b/c.
An argument change:LABEL=A>B (A, B: labels of cells given before it) prints the change of each
difference from cell A to cell B, paired by seed (e.g. from 100 to 300 pretraining steps).
An argument pool:LABEL=A|B|... makes a cell whose per-seed values are the mean over cells A, B, ...
(so its differences are the per-seed means of theirs; seeds stay the unit of the interval).
--before (first argument): use the perplexity before fine-tuning (pretrained_test_perplexity).

Output: one Markdown row per cell: the per-seed values of each method, then for Uniform and
Random Init the mean of (baseline - DP-MixMin) over the seeds with a 95% Student-t interval
(positive: DP-MixMin has the lower perplexity). Pairs are matched by seed; a seed missing from
either method is left out of that difference (and the row says how many seeds it used).

    scripts/paired_perplexity.py 'small n, eps 1=/tmp/a/out.json,/tmp/b/out.json@1'
"""
import json
import math
import sys

# Two-sided 95% Student-t quantiles t_{0.975, df} for df = 1..10.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
METHODS = ["dp-mixmin", "uniform", "random-init"]


def load_runs(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            runs.extend(json.load(f)["downstream"])
    return runs


METRIC = ["test_perplexity"]


def by_seed(runs, method, epsilon):
    out = {}
    for r in runs:
        if r["method"] == method and (epsilon is None or abs(r["epsilon"] - epsilon) < 1e-9):
            if r.get(METRIC[0]) is not None:
                out[int(r["seed"])] = float(r[METRIC[0]])
    return out


def interval(diffs):
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("nan")
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return mean, T975[n - 2] * sd / math.sqrt(n)


def parse_cell(arg):
    label, _, rest = arg.partition("=")
    if rest.startswith("values:"):
        values = {}
        for part in rest[len("values:"):].split(","):
            method, _, seq = part.partition("=")
            values[method] = {s: float(v) for s, v in enumerate(seq.split("/"))}
        return [(label, values)]
    rest, _, ri = rest.partition("+ri:")
    files, _, eps = rest.partition("@")
    runs = load_runs(files.split(","))
    ri_runs = load_runs(ri.split(",")) if ri else runs
    epsilons = [float(eps)] if eps else sorted({r["epsilon"] for r in runs})
    cells = []
    for e in epsilons:
        values = {m: by_seed(runs, m, e) for m in ["dp-mixmin", "uniform"]}
        values["random-init"] = by_seed(ri_runs, "random-init", e)
        cells.append((label if eps or len(epsilons) == 1 else f"{label}, ε = {e:g}", values))
    return cells


def fmt_seeds(values):
    return " / ".join(f"{values[s]:.1f}" for s in sorted(values)) if values else "—"


def differences(values, base):
    seeds = set(values.get(base, {})) & set(values.get("dp-mixmin", {}))
    return {s: values[base][s] - values["dp-mixmin"][s] for s in seeds}


def row(label, values, change_of=None):
    if change_of is None:
        cols = [label] + [fmt_seeds(values.get(m, {})) for m in METHODS]
    else:
        cols = [label, "", "", ""]
    for base in ["uniform", "random-init"]:
        by = differences(values, base)
        if change_of is not None:
            before = differences(change_of, base)
            by = {s: by[s] - before[s] for s in set(by) & set(before)}
        seeds = sorted(by)
        if not seeds:
            cols.append("—")
            continue
        diffs = [by[s] for s in seeds]
        mean, half = interval(diffs)
        lo, hi = mean - half, mean + half
        beyond = not math.isnan(half) and (lo > 0 or hi < 0)
        text = f"{mean:+.1f} [{lo:+.1f}, {hi:+.1f}]" + ("" if len(seeds) == 3 else f" ({len(seeds)} seeds)")
        text += " (" + ", ".join(f"{d:+.1f}" for d in diffs) + ")"
        cols.append(f"**{text}**" if beyond else text)
    return "| " + " | ".join(cols) + " |"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    print("| cell | DP-MixMin (seeds 0 / 1 / 2) | Uniform | Random Init "
          "| Uniform − DP-MixMin (per seed) | Random Init − DP-MixMin (per seed) |")
    print("|---|---|---|---|---|---|")
    args = argv[1:]
    if args and args[0] == "--before":
        METRIC[0] = "pretrained_test_perplexity"
        args = args[1:]
    cells = {}
    for arg in args:
        if arg.startswith("pool:"):
            label, _, names = arg[len("pool:"):].partition("=")
            parts = [cells[n] for n in names.split("|")]
            cells[label] = {
                m: {sd: sum(p[m][sd] for p in parts) / len(parts) for sd in set.intersection(*(set(p[m]) for p in parts))}
                for m in METHODS
            }
            print(row(label, cells[label]))
            continue
        if arg.startswith("change:"):
            label, _, pair = arg[len("change:"):].partition("=")
            a, _, b = pair.partition(">")
            print(row(label, cells[b], change_of=cells[a]))
            continue
        for label, values in parse_cell(arg):
            cells[label] = values
            print(row(label, values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
