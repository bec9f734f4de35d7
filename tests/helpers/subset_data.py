"""Random feature sets and a rule that labels them (conjunctions of two and
of three features, and a feature without another), shared by the kernel
trainers' tests (primal, on-line)."""

V = 40


def random_sets(rng, n, v=V, lo=0, hi=10):
    return [rng.choice(v, rng.integers(lo, hi + 1), replace=False) for _ in range(n)]


def label_of(x):
    s = set(int(i) for i in x)
    return 1 if {3, 5} <= s or {7, 8, 9} <= s or (11 in s and 12 not in s) else -1
