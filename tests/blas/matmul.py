"""tests/blas/matmul.py: numpy's float32 matmul for tests/blas/run.sh.

  matmul.py run OUT.npy     300x200 @ 200x250 of seeded random data -> OUT.npy
  matmul.py compare G.npy N.npy
                            G (run under LD_PRELOAD=libglgemm_blas.so) and N
                            (without) against a float64 product: each within
                            k 2^-23 (|A| @ |B|) elementwise, and G within a
                            relative 1e-5 of N.
"""
import sys

import numpy as np


def operands():
    rng = np.random.default_rng(17)
    a = rng.uniform(-1, 1, (300, 200)).astype(np.float32)
    b = rng.uniform(-1, 1, (200, 250)).astype(np.float32)
    return a, b


def main():
    if sys.argv[1] == "run":
        a, b = operands()
        c = a @ b
        assert c.dtype == np.float32 and c.shape == (300, 250)
        np.save(sys.argv[2], c)
        return 0
    a, b = operands()
    g, n = np.load(sys.argv[2]), np.load(sys.argv[3])
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = a.shape[1] * 2.0**-23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    bad = 0
    for name, c in (("preloaded", g), ("own BLAS", n)):
        err = np.abs(c.astype(np.float64) - ref)
        worst = float(np.max(err / bound))
        print(f"matmul {name}: max |C - ref| = {float(err.max()):.3g}, "
              f"{worst:.3f} of the bound")
        bad |= not worst <= 1.0
    rel = float(np.max(np.abs(g.astype(np.float64) - n)) / np.max(np.abs(n)))
    print(f"matmul: preloaded vs own BLAS: relative difference {rel:.3g}")
    bad |= not rel <= 1e-5
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
