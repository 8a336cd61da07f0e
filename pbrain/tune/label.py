"""Labels gomoku positions with an engine's evaluation, for fitting inarow's weights.

Reads match results files (one JSON game a line, as the `match` runner writes them),
takes every position from the end of each opening to four plies before the game's end,
shuffles them (seed 1), and shows the first LIMIT (environment, 3000 by default) to the
Gomocup engine ENGINE (environment) with BOARD, one process for all, TIME ms a move and
one thread. Each position is appended to OUT as its moves in inarow's notation, a tab,
and the engine's last `Eval` (for the side to move; `+M…`/`-M…` for a win or loss it
sees). Positions already in OUT are skipped, so a rerun resumes.

    ENGINE=/work/yardsticks/rapfi/Rapfi/build/pbrain-rapfi \
        python3 pbrain/tune/label.py TIME OUT RESULTS...

Rapfi answers `ERROR Unknown command` to a line sent within a moment of its own move,
hence the pause after each answer (see docs/gomoku-match.md). It also reads
`INFO timeout_match 0` as no time at all, so no match time is sent.
"""

import json
import os
import random
import subprocess
import sys
import time


def main():
    engine = os.environ["ENGINE"]
    ms, out_path, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    limit = int(os.environ.get("LIMIT", "3000"))
    seen = set()
    if os.path.exists(out_path):
        with open(out_path) as f:
            seen = {line.split("\t")[0] for line in f}
    positions = []
    for path in files:
        with open(path) as f:
            for line in f:
                game = json.loads(line)
                moves = game["moves"].split()
                start = max(len(game["opening"].split()), 1)
                for i in range(start, len(moves) - 3):
                    key = " ".join(moves[:i])
                    if key not in seen:
                        seen.add(key)
                        positions.append(key)
    random.seed(1)
    random.shuffle(positions)
    positions = positions[:limit]
    proc = subprocess.Popen(
        [engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(engine),
        bufsize=1,
    )

    def send(text):
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    def answer(done):
        last = None
        while True:
            line = proc.stdout.readline()
            if not line:
                sys.exit("the engine exited")
            line = line.strip()
            if "Eval" in line:
                last = line.split("Eval")[1].split("|")[0].strip()
            if done(line):
                return last

    send("START 15")
    answer(lambda line: line == "OK")
    send(f"INFO timeout_turn {ms}")
    send("INFO thread_num 1")
    with open(out_path, "a") as out:
        for key in positions:
            moves = key.split()
            n = len(moves)
            send("BOARD")
            for i, m in enumerate(moves):
                x, y = ord(m[0]) - ord("a"), 15 - int(m[1:])
                # Field 1: the side to move's stones.
                send(f"{x},{y},{1 if i % 2 == n % 2 else 2}")
            send("DONE")
            value = answer(lambda line: line[:1].isdigit() and "," in line)
            time.sleep(0.1)
            out.write(f"{key}\t{value}\n")
            out.flush()
    send("END")


if __name__ == "__main__":
    main()
