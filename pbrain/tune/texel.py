"""Fits the gomoku evaluation's weights to labelled positions (logistic, "Texel" style).

Input: the output of `cargo run -p inarow-engine --release --example gomoku_features`
on a file of `label.py`: a label (an engine's evaluation, `+M…`/`-M…` for a seen win or
loss), a tab, the features of `inarow_engine::eval_features`. Each label becomes a
target in [0, 1]: sigmoid(eval / K) (K = 200 by default), 1 or 0 for a win or loss. The
weights minimise the mean squared difference between sigmoid(evaluation / K) and the
target (Adam, 400 steps, from the old weights). Positions the search never evaluates (a
five on the board for either side, an open four to make for the player to move) are
left out. Prints the fitted weights and the tables in inarow's units (4 a label unit):
LINE_VALUE and CELL_VALUE for engine/src/ai/gomoku/patterns.rs, INITIATIVE for board.rs
(the tables' last entries, never evaluated, are set from the fit by hand).

    cargo run -p inarow-engine --release --example gomoku_features \
        < pbrain/tune/labels.tsv > features.tsv
    python3 pbrain/tune/texel.py features.tsv 200 2000
"""

import math
import sys

NAMES = (
    [f"me_{p}" for p in "B1 F1 B2 F2 B3 F3 B4 F4".split()]
    + [f"me_{c}" for c in "FLEX3 FLEX3P FLEX3_2X BLOCK4 BLOCK4P BLOCK4_FLEX3".split()]
    + [f"op_{p}" for p in "B1 F1 B2 F2 B3 F3 B4 F4".split()]
    + [f"op_{c}" for c in "FLEX3 FLEX3P FLEX3_2X BLOCK4 BLOCK4P BLOCK4_FLEX3 FLEX4".split()]
    + ["initiative_four_three", "initiative_three_three", "initiative_their_three", "bias"]
)


def main():
    k = float(sys.argv[2]) if len(sys.argv) > 2 else 200.0
    lr = float(sys.argv[3]) if len(sys.argv) > 3 else 2000.0
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            label, feats = line.rstrip("\n").split("\t")
            if label in ("None", "VAL_NONE"):
                continue
            if "M" in label:
                target = 1.0 if label.startswith("+") else 0.0
            else:
                target = 1 / (1 + math.exp(-float(label) / k))
            f = [int(x) for x in feats.split()]
            me_l, me_c, op_l, op_c, ini = f[0:8], f[8:16], f[16:24], f[24:32], f[32:35]
            if me_c[7] or op_c[7] or me_c[6]:
                continue
            rows.append((me_l + me_c[:6] + op_l + op_c[:7] + ini + [1], target))
    n = len(rows[0][0])
    # The old weights, in label units (a least-squares fit put them at 0.14 of one).
    old_me = [1, 2, 5, 15, 18, 53, 66, 198] + [0, 33, 198, 0, 44, 286]
    old_op = [-1, -2, -5, -14, -16, -48, -60, -180] + [0, -30, -180, 0, -40, -260, -600]
    w = [v * 0.14 for v in old_me + old_op + [1500, 700, -150]] + [0.0]
    scale = [max(1.0, max(abs(x[i]) for x, _ in rows)) for i in range(n)]
    xs = [[x[i] / scale[i] for i in range(n)] for x, _ in rows]
    ts = [t for _, t in rows]
    u = [w[i] * scale[i] for i in range(n)]

    def predict(x):
        z = max(-30.0, min(30.0, sum(a * b for a, b in zip(u, x)) / k))
        return 1 / (1 + math.exp(-z))

    def loss():
        return sum((predict(x) - t) ** 2 for x, t in zip(xs, ts)) / len(xs)

    print("positions", len(rows), "loss with the old weights", loss())
    m, v = [0.0] * n, [0.0] * n
    for step in range(1, 401):
        g = [0.0] * n
        for x, t in zip(xs, ts):
            p = predict(x)
            d = 2 * (p - t) * p * (1 - p) / k
            for i in range(n):
                if x[i]:
                    g[i] += d * x[i]
        for i in range(n):
            gi = g[i] / len(xs)
            m[i] = 0.9 * m[i] + 0.1 * gi
            v[i] = 0.999 * v[i] + 0.001 * gi * gi
            mh, vh = m[i] / (1 - 0.9**step), v[i] / (1 - 0.999**step)
            u[i] -= lr * 0.01 * mh / (math.sqrt(vh) + 1e-12)
        if step % 100 == 0:
            print("step", step, "loss", loss(), flush=True)
    w = [u[i] / scale[i] for i in range(n)]
    for name, value in zip(NAMES, w):
        print(f"{name:24s} {value:9.2f}")

    def r(q):
        return int(round(q * 4))

    me_l, me_c, op_l, op_c, ini = w[0:8], w[8:14], w[14:22], w[22:29], w[29:32]
    print("LINE_VALUE mover ", [0] + [r(q) for q in me_l[:7]])
    print("LINE_VALUE other ", [0] + [r(-q) for q in op_l])
    print("CELL_VALUE mover ", [0] + [r(q) for q in me_c])
    print("CELL_VALUE other ", [0] + [r(-q) for q in op_c])
    print("INITIATIVE", [r(q) for q in ini])


if __name__ == "__main__":
    main()
