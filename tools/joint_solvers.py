#!/usr/bin/python3
"""joint_solvers.py — every solver on joint graphs at 90/80/70 % of the
baseline peak, each plan re-validated by tests/validate.py.

    tools/joint_solvers.py [--remat build/remat] GRAPH ...

Prints one markdown row per graph and solver: for each budget the plan's
peak and cost overhead ("ok"), or the solver's one-line reason. Exits 1 if
a plan fails the independent check or a solver fails otherwise (a crash,
an unexpected status).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATE = os.path.join(HERE, "..", "tests", "validate.py")
BUDGETS = (90, 80, 70)
# searches with a time limit get a short one: their refusal says so
OPTS = {"checkmate": ["-O", "time_limit=10"], "checkmate-free": ["-O", "time_limit=10"],
        "checkmate-lp": ["-O", "time_limit=10"], "fastsa": ["-O", "time_limit=2"],
        "auto": ["-O", "time_limit=10"]}


def short(err):
    line = err.strip().splitlines()[-1] if err.strip() else ""
    line = re.sub(r"^remat: [^:]*: ", "", line)
    m = re.search(r"found no plan within budget .*; smallest peak found [^(]*\((\d+) bytes\)", line)
    if m:
        return "none, least %s" % m.group(1)
    m = re.search(r"below the smallest possible peak [^(]*\((\d+) bytes\)", line)
    if m:
        return "below lower bound %s" % m.group(1)
    return line[:90]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--remat", default="build/remat")
    ap.add_argument("graphs", nargs="+")
    a = ap.parse_args()
    solvers = re.findall(r"^([a-z][a-z0-9_-]*) ", subprocess.run(
        [a.remat, "list-solvers"], capture_output=True, text=True).stdout, re.M)
    bad = 0
    print("| graph | solver | 90 % | 80 % | 70 % |")
    print("|---|---|---|---|---|")
    for g in a.graphs:
        base = json.loads(subprocess.run([a.remat, "solve", g, "-s", "noremat", "-o", "/dev/stdout"],
                                         capture_output=True, text=True).stdout)["peak"]
        for s in solvers:
            cells = []
            for b in BUDGETS:
                plan = "/tmp/joint_solvers.%d.json" % os.getpid()
                r = subprocess.run([a.remat, "solve", g, "-s", s] + OPTS.get(s, []) +
                                   ["-b", "%d%%" % b, "-o", plan], capture_output=True, text=True)
                if r.returncode == 0:
                    v = subprocess.run([sys.executable, VALIDATE, g, plan], capture_output=True,
                                       text=True)
                    p = json.load(open(plan))
                    if v.returncode:
                        bad += 1
                        cells.append("INVALID: " + v.stdout.strip())
                    else:
                        cells.append("%.1f %%, cost %+.1f %%" % (100.0 * p["peak"] / base,
                                     100.0 * (p["cost"] / p["baseline_cost"] - 1)))
                    os.unlink(plan)
                elif r.returncode in (1, 3):
                    cells.append(short(r.stderr))
                else:
                    bad += 1
                    cells.append("FAILED (%d): %s" % (r.returncode, short(r.stderr)))
            print("| %s | %s | %s |" % (os.path.basename(g), s, " | ".join(cells)), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
