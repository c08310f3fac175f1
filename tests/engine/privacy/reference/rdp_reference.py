#!/usr/bin/python3
"""Independent reference values for the subsampled-Gaussian RDP accountant.

A second implementation, in Python with SciPy's special functions, of the analysis that
Opacus's RDP accountant uses (Mironov, Talwar & Zhang 2019; conversion of Balle et al. 2020),
written from the papers' formulas. Integer orders are additionally cross-checked with mpmath at
50 significant digits. It writes rdp_reference.csv, which tst_gaussian_accountant compares the
C++ engine against (relative 1e-6, the issue's tolerance).

Run:  /usr/bin/python3 tests/engine/privacy/reference/rdp_reference.py
(needs Debian's python3-scipy and python3-mpmath)
"""
import csv
import math
import os

import mpmath
import numpy as np
from scipy import special

ORDERS = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))


def log_add(a, b):
    lo, hi = min(a, b), max(a, b)
    if lo == -np.inf:
        return hi
    return math.log1p(math.exp(lo - hi)) + hi


def log_sub(a, b):
    if b == -np.inf:
        return a
    if a == b:
        return -np.inf
    try:
        return math.log(math.expm1(a - b)) + b
    except OverflowError:
        return a


def log_erfc(x):
    return math.log(2) + special.log_ndtr(-x * 2 ** 0.5)


def log_a_int(q, sigma, alpha):
    log_a = -np.inf
    for i in range(alpha + 1):
        c = math.log(special.binom(alpha, i)) + i * math.log(q) + (alpha - i) * math.log(1 - q)
        log_a = log_add(log_a, c + (i * i - i) / (2 * sigma ** 2))
    return log_a


def log_a_frac(q, sigma, alpha):
    a0, a1 = -np.inf, -np.inf
    i = 0
    z0 = sigma ** 2 * math.log(1 / q - 1) + 0.5
    while True:
        coef = special.binom(alpha, i)
        lc = math.log(abs(coef))
        j = alpha - i
        t0 = lc + i * math.log(q) + j * math.log(1 - q)
        t1 = lc + j * math.log(q) + i * math.log(1 - q)
        e0 = math.log(0.5) + log_erfc((i - z0) / (math.sqrt(2) * sigma))
        e1 = math.log(0.5) + log_erfc((z0 - j) / (math.sqrt(2) * sigma))
        s0 = t0 + (i * i - i) / (2 * sigma ** 2) + e0
        s1 = t1 + (j * j - j) / (2 * sigma ** 2) + e1
        if coef > 0:
            a0, a1 = log_add(a0, s0), log_add(a1, s1)
        else:
            a0, a1 = log_sub(a0, s0), log_sub(a1, s1)
        i += 1
        if max(s0, s1) < -30:
            break
    return log_add(a0, a1)


def rdp(q, sigma, alpha):
    if q == 1.0:
        return alpha / (2 * sigma ** 2)
    if float(alpha).is_integer():
        return log_a_int(q, sigma, int(alpha)) / (alpha - 1)
    return log_a_frac(q, sigma, alpha) / (alpha - 1)


def rdp_int_mpmath(q, sigma, alpha):
    mpmath.mp.dps = 50
    q, s = mpmath.mpf(q), mpmath.mpf(sigma)
    total = mpmath.mpf(0)
    for i in range(alpha + 1):
        total += mpmath.binomial(alpha, i) * q ** i * (1 - q) ** (alpha - i) * mpmath.e ** ((i * i - i) / (2 * s * s))
    return float(mpmath.log(total) / (alpha - 1))


def epsilon(q, sigma, steps, delta):
    best = (math.inf, float("nan"))
    for a in ORDERS:
        r = rdp(q, sigma, a) * steps
        e = r + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) / (a - 1)
        if e < best[0]:
            best = (e, a)
    return best


def opacus_style_sigma(target, delta, q, steps, tol=0.01):
    """Noise calibration as Opacus's get_noise_multiplier does it (tolerance 0.01 in epsilon)."""
    lo, hi = 0.0, 10.0
    eps_hi = math.inf
    while eps_hi > target:
        hi = 2 * hi
        eps_hi = epsilon(q, sigma=hi, steps=steps, delta=delta)[0]
    while target - eps_hi > tol:
        mid = (lo + hi) / 2
        e = epsilon(q, mid, steps, delta)[0]
        if e < target:
            hi, eps_hi = mid, e
        else:
            lo = mid
    return hi


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rows = []
    grid = [
        (0.01, 1.0, 1000, 1e-6), (0.01, 1.1, 10000, 1e-5), (0.004, 0.8, 5000, 1e-5), (0.1, 1.5, 100, 1e-5),
        (0.2, 8.278, 100, 1e-5), (0.2, 35.976, 100, 1e-5), (0.2, 2.147, 100, 1e-5), (0.001, 10.0, 100, 1e-5),
        (0.001, 20.0, 10, 1e-5), (0.0001, 5.0, 100, 1e-6), (0.5, 0.7, 10, 1e-5), (0.05, 0.5, 200, 1e-5),
        (0.02, 0.6, 3000, 1e-5), (0.3, 3.0, 50, 1e-4), (1.0, 1.0, 1, 1e-5), (1.0, 5.0, 100, 1e-5),
        (1.0, 0.5, 10, 1e-3), (0.256, 1.2, 60, 1e-5), (0.0042, 1.0, 36000, 1e-5), (0.015, 2.0, 36000, 1e-5),
        (0.6, 4.0, 200, 1e-5), (0.9, 2.0, 20, 1e-6), (0.08, 0.9, 2000, 1e-5), (0.03, 12.0, 100, 1e-5),
        (0.005, 3.0, 1, 1e-5), (0.01, 100.0, 1000, 1e-5), (0.25, 1.0, 1, 1e-5), (0.12, 0.75, 500, 1e-7),
        (0.0167, 1.3, 9600, 1e-5), (0.0042, 0.6, 20000, 1e-5),
    ]
    for q in (0.001, 0.01, 0.1):
        for sigma in (0.7, 1.0, 2.0, 4.0):
            for steps in (10, 1000):
                grid.append((q, sigma, steps, 1e-5))
    for q, sigma, steps, delta in grid:
        e, a = epsilon(q, sigma, steps, delta)
        rows.append(dict(q=q, sigma=sigma, steps=steps, delta=delta, epsilon=repr(e), order=a))
    # Cross-check integer orders against 50-digit arithmetic.
    worst = 0.0
    for q, sigma, steps, delta in grid:
        if q == 1.0:
            continue
        for a in (2, 3, 8, 20, 63):
            x, y = rdp(q, sigma, a), rdp_int_mpmath(q, sigma, a)
            worst = max(worst, abs(x - y) / max(abs(y), 1e-300))
    with open(os.path.join(here, "rdp_reference.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["q", "sigma", "steps", "delta", "epsilon", "order"])
        w.writeheader()
        w.writerows(rows)
    sig_rows = []
    for target, delta, q, steps in [(1.0, 1e-5, 0.01, 1000), (2.0, 1e-5, 0.004, 36000), (0.5, 1e-5, 0.2, 100),
                                    (5.0, 1e-6, 0.1, 500), (8.0, 1e-5, 0.05, 10000), (1.0, 1e-5, 1.0, 10),
                                    (0.2, 1e-5, 0.2, 100), (3.0, 1e-5, 0.256, 60)]:
        sig_rows.append(dict(epsilon=target, delta=delta, q=q, steps=steps,
                             opacus_sigma=repr(opacus_style_sigma(target, delta, q, steps))))
    with open(os.path.join(here, "sigma_reference.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["epsilon", "delta", "q", "steps", "opacus_sigma"])
        w.writeheader()
        w.writerows(sig_rows)
    print(f"{len(rows)} epsilon rows, {len(sig_rows)} sigma rows; worst integer-order rel. diff vs mpmath {worst:.2e}")


if __name__ == "__main__":
    main()
