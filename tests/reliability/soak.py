"""The soak test (issue 31): the real window for hours with a 20-link chain running, in a child process.

On a cycle of one period (a minute unless `--period`): File ▸ Record MP4 started (a real file),
compare mode on, compare mode off, the recording stopped (the file checked, then deleted), and every
third cycle Run ▸ Reset then Run ▸ Run. With a period of 30 s or more, the chain must have advanced
from compare mode's end to the next cycle. Every period / 6 the memory of the window's process
(resident, VmRSS) and of each of its descendants (the run processes, ffmpeg: their private pages, as
forked runs share the rest with the window) is sampled; a line per
period is printed, and the JSON report (per-period memory, cycles, recordings written, every exception, message and stall) is
rewritten each period, so a run cut short still leaves its figures.

It fails (exit 1) when the last period's mean memory, of the window's process (resident) or of the
window with its descendants (its resident memory and their private memory), is more than MEMORY_GROWTH above the first period's
(in a run of VERDICT_PERIODS periods or more; the clock starts once the chain runs); on any exception reaching
sys.excepthook (or threading's, or the unraisable hook), any warning or error through Qt's message
handler or Python's warnings, any message box the window shows, a recording that fails or writes no
file (with a period of 30 s or more), a chain that stops advancing; or when the GUI thread does not answer within the GUI monkey's stall bound (monkey_child.py).
The child's death by a signal or a hang is a failure too.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tests/reliability/soak.py \\
        --seconds 7200 --report /tmp/soak.json [--links 20] [--period 60]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MEMORY_GROWTH = 0.20  # the last period's memory may exceed the first's by this fraction at most
VERDICT_PERIODS = 10  # a shorter run says its memory without a verdict (its first periods are the start's)
SAMPLES_PER_PERIOD = 6
WINDOW_SIZE = (1000, 700)  # small, so that the encoder is light
#: a cycle's steps, as fractions of the period: (fraction, step)
CYCLE = ((0.0, "record"), (0.15, "compare on"), (0.45, "compare off"), (0.6, "stop recording"), (0.75, "reset"))
RESET_EVERY = 3  # cycles


# --- memory, read from /proc ----------------------------------------------------------------------


def _parents() -> dict[int, int]:
    """Every process's parent (pid → ppid)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass  # ended meanwhile
    return parents


def descendants(pid: int) -> list[int]:
    parents, found, frontier = _parents(), [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def resident_mb(pid: int) -> tuple[str, float, float, float]:
    """(command name, resident memory, proportional share, private memory) of a process in MB; ('', 0, 0, 0)
    when it has ended. The share (PSS) counts a page shared by n processes as 1/n in each — any n processes,
    unrelated ones mapping the same libraries included, so it moves with whatever else runs (a soak beside
    nine GUI monkeys of the same checkout: the window's share 150 MB, 287 MB once they ended, its resident
    memory 458 MB throughout); the private pages (USS) are the process's own."""
    name, rss = "", 0.0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("Name:"):
                    name = line.split(None, 1)[1].strip()
                elif line.startswith("VmRSS:"):
                    rss = float(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        return "", 0.0, 0.0, 0.0
    pss = private = rss
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = {line.split()[0]: float(line.split()[1]) / 1024.0 for line in fh if line.split()[-1] == "kB"}
        pss, private = fields["Pss:"], fields["Private_Clean:"] + fields["Private_Dirty:"]
    except (OSError, ValueError, IndexError, KeyError):
        pass  # no smaps_rollup (kernel before 4.14): the resident memory
    return name, rss, pss, private


def sample(pid: int) -> dict:
    """The window's process and its descendants, now: the window's resident memory and share, the
    descendants' private memory and shares; what the family takes (total_mb): the window's resident pages
    (those it shares with its forked runs among them) and each descendant's own pages."""
    _name, window_rss, window_pss, _private = resident_mb(pid)
    children = [resident_mb(child) for child in descendants(pid)]
    children = [child for child in children if child[0]]
    private = sum(own for _n, _rss, _pss, own in children)
    return {"window_mb": round(window_rss, 1), "window_pss_mb": round(window_pss, 1), "children_mb": round(private, 1),
            "children_pss_mb": round(sum(pss for _n, _rss, pss, _own in children), 1),
            "total_mb": round(window_rss + private, 1), "processes": len(children),
            "names": sorted({name for name, *_sizes in children})}


def period_summary(index: int, samples: list[dict]) -> dict:
    def mean(key):
        return round(sum(s[key] for s in samples) / len(samples), 1)

    return {"period": index, "samples": len(samples), "window_mb": mean("window_mb"),
            "window_pss_mb": mean("window_pss_mb"), "children_mb": mean("children_mb"),
            "children_pss_mb": mean("children_pss_mb"), "total_mb": mean("total_mb"), "window_mb_max": max(s["window_mb"] for s in samples), "total_mb_max": max(s["total_mb"] for s in samples),
            "processes_max": max(s["processes"] for s in samples),
            "names": sorted({n for s in samples for n in s["names"]})}


def memory_verdict(periods: list[dict]) -> str:
    """'' or why the memory fails: the last period's mean above the first's by more than MEMORY_GROWTH
    (the window's process, or the window with its descendants)."""
    if len(periods) < VERDICT_PERIODS:
        return ""
    first, last = periods[0], periods[-1]
    for key, what in (("window_mb", "the window's process"),
                      ("total_mb", "the window with its run processes (its resident and their private memory)")):
        if last[key] > (1.0 + MEMORY_GROWTH) * first[key]:
            return (f"memory: {what} holds {last[key]:.0f} MB in the last period against {first[key]:.0f} MB in the "
                    f"first (+{100 * (last[key] / first[key] - 1):.0f} %, at most +{100 * MEMORY_GROWTH:.0f} %)")
    return ""


# --- the parent --------------------------------------------------------------------------------------


def run(seconds: float, report: str, links: int = 20, period: float = 60.0) -> int:
    """The soak in a child process; 0 when it found nothing, else 1 (the report says what)."""
    os.makedirs(os.path.dirname(os.path.abspath(report)), exist_ok=True)
    if os.path.exists(report):
        os.remove(report)
    with tempfile.TemporaryDirectory(prefix="eomlab-soak-") as workdir:
        spec = {"seconds": seconds, "report": os.path.abspath(report), "links": links, "period": period,
                "workdir": workdir, "stacks": os.path.join(workdir, "stacks.txt")}
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.path.dirname(HERE)] +
                                                           [p for p in [os.environ.get("PYTHONPATH")] if p]))
        child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)], env=env)
        try:
            code = child.wait(timeout=seconds + 120.0 + 2 * period)
        except subprocess.TimeoutExpired:
            child.kill()
            code = None
        result = {}
        if os.path.exists(report):
            with open(report) as fh:
                result = json.load(fh)
        if code not in (0, 1) or not result.get("finished"):  # 1: the child found something and said so
            stacks = open(spec["stacks"]).read()[-4000:] if os.path.exists(spec["stacks"]) else ""
            result.setdefault("problems", []).append(
                {"kind": "hang" if code is None else "crash", "text": f"the window's process ended with {code} "
                                                                      "before its report was finished",
                 "stacks": stacks})
            result["failure"] = result["problems"][-1]["text"]
            with open(report, "w") as fh:
                json.dump(result, fh, indent=1)
    print(f"soak: {result.get('failure') or 'nothing found'}; report {report}", flush=True)
    return 1 if result.get("failure") else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=7200.0)
    parser.add_argument("--report", default="soak_report.json", help="the JSON report written")
    parser.add_argument("--links", type=int, default=20, help="links of the planar chain")
    parser.add_argument("--period", type=float, default=60.0,
                        help="seconds of a cycle and of a memory line (a minute; shorter for a quick check)")
    args = parser.parse_args(argv)
    if args.child:
        from soak_child import child_main

        return child_main(json.loads(args.child))
    return run(args.seconds, args.report, args.links, args.period)


if __name__ == "__main__":
    sys.exit(main())
