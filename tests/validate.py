#!/usr/bin/env python3
"""validate.py GRAPH.json PLAN.json — an independent checker of a remat-plan,
written from ../shared/spec/formats.md §3 and sharing no code with the
simulator: checks validity, recomputes peak and cost, and compares them with
the figures the plan states. Prints "ok PEAK COST" or one error line and
exits 1. Reads only the remat-graph JSON format."""
import json
import sys


def main():
    g = json.load(open(sys.argv[1]))
    p = json.load(open(sys.argv[2]))
    nodes = {n["id"]: n for n in g["nodes"]}
    phase = {i: n.get("phase", "fwd") for i, n in nodes.items()}
    size = {i: n.get("size", 1) for i, n in nodes.items()}
    ins = {i: list(dict.fromkeys(n.get("inputs", []))) for i, n in nodes.items()}
    readers = set(x for n in nodes.values() for x in n.get("inputs", []))
    outs = g.get("outputs") or [i for i in nodes if i not in readers and phase[i] != "input"]
    sched = p["schedule"]
    T = len(sched)
    resident = sum(size[i] for i in nodes if phase[i] == "input")
    last = {}
    end = [0] * T  # last step each production is held
    for t, v in enumerate(sched):
        if v not in nodes:
            return fail("step %d: unknown node %r" % (t + 1, v))
        if phase[v] == "input":
            return fail("step %d: input node %r scheduled" % (t + 1, v))
        for u in ins[v]:
            if phase[u] == "input":
                continue
            if u not in last:
                return fail("step %d (%s): reads %r before it is produced" % (t + 1, v, u))
            end[last[u]] = t
        last[v] = t
        end[t] = t
    for o in outs:
        if phase[o] == "input":
            continue
        if o not in last:
            return fail("output %r never produced" % o)
        end[last[o]] = T - 1
    peak = resident
    for t in range(T):
        m = resident + nodes[sched[t]].get("workspace", 0)
        for q in range(t + 1):
            if end[q] >= t:
                m += size[sched[q]]
        peak = max(peak, m)
    cost = sum(nodes[v].get("cost", 1) for v in sched)
    if p.get("peak") is not None and p["peak"] != peak:
        return fail("plan states peak %s, independent count %d" % (p["peak"], peak))
    if p.get("cost") is not None and abs(p["cost"] - cost) > 1e-9 * max(1.0, cost):
        return fail("plan states cost %s, independent count %s" % (p["cost"], cost))
    if p.get("budget") is not None and peak > p["budget"]:
        return fail("peak %d exceeds the plan's budget %d" % (peak, p["budget"]))
    print("ok %d %s" % (peak, cost))
    return 0


def fail(msg):
    print("invalid: " + msg)
    return 1


if __name__ == "__main__":
    sys.exit(main())
