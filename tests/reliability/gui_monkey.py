"""The GUI monkey: a seeded random user on the real main window (issue 31), in a child process.

Actions (monkey_actions.py): menu and toolbar entries (modal dialogs dismissed at once), shortcuts,
combo boxes, values typed into the inspector and parameter fields (valid, extreme, NaN, empty,
letters), slider and timeline moves, mouse drags on the 2-D and 3-D views, tree selections, Delete,
undo/redo bursts, compare and presentation mode, recording start/stop, run/pause/reset/step.

After each action: no exception reached sys.excepthook (nor threading's or the unraisable hook), no
warning or error went through Qt's message handler or Python's warnings, and the GUI thread
answered within STALL_S (1 s; longer in proportion to the machine's load beyond its cores) (a watchdog thread watches a heartbeat timer and dumps every thread's stack
with faulthandler). At the end: the model saves and loads back equal, and undoing everything gives
the model the session started from. A crash is the child's death by a signal.

A failure prints the seed and a shortened action list that reproduces it (delta debugging: sub-lists
replayed on fresh windows while they fail the same way), as JSON for `--replay`.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tests/reliability/gui_monkey.py \\
        --seconds 600 --seeds 1 2 3 --model four_bar [--compare] [--replay actions.json]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
STALL_S = 1.0  # the GUI thread answers within this (the heartbeat ticks every 50 ms)
HANG_S = 30.0  # a stall this long ends the child (stacks dumped first)


@dataclass
class Outcome:
    seed: int
    model: str
    compare: bool
    actions: list = field(default_factory=list)  # those done, the failing one last
    done: list = field(default_factory=list)  # the same, in words
    failure: str = ""  # "" when all invariants held
    kind: str = ""  # the failure's class, for the shrink: "exception", "stall", "crash", ...
    longest_stall: float = 0.0
    stacks: str = ""

    def describe(self) -> str:
        lines = [f"GUI monkey: seed {self.seed}, model {self.model}{' (compare)' if self.compare else ''}: "
                 f"{self.failure or 'nothing found'} after {len(self.actions)} actions"]
        if self.failure:
            lines += [f"  {i:3d} {words}" for i, words in enumerate(self.done)]
            lines.append("replay with --replay FILE holding: " + json.dumps(self.actions))
            if self.stacks:
                lines.append(self.stacks[-4000:])
        return "\n".join(lines)


# --- the parent: run a child, shrink a failure ------------------------------------------------------


def run_child(seed: int, seconds: float, model: str, compare: bool, actions: list | None = None,
              timeout: float | None = None) -> Outcome:
    """One session in a child process (a fresh window); its outcome, a crash or hang included."""
    with tempfile.TemporaryDirectory(prefix="eomlab-monkey-") as workdir:
        spec = {"seed": seed, "seconds": seconds, "model": model, "compare": compare, "actions": actions,
                "workdir": workdir, "log": os.path.join(workdir, "log.jsonl"),
                "result": os.path.join(workdir, "result.json"), "stacks": os.path.join(workdir, "stacks.txt")}
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.path.dirname(HERE)] +
                                                           [p for p in [os.environ.get("PYTHONPATH")] if p]))
        timeout = timeout or seconds + 90.0 + (len(actions) * 2.0 if actions else 0.0)
        # the spec goes in a file: a long action list (3111 actions, 340 kB) as an argument exceeded
        # the kernel's 128 kB per argument (E2BIG), so neither the replay nor the shrink could run it
        spec_path = os.path.join(workdir, "spec.json")
        with open(spec_path, "w") as fh:
            json.dump(spec, fh)
        try:
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", spec_path], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
            code, output = proc.returncode, proc.stdout
        except subprocess.TimeoutExpired as expired:
            code, output = None, (expired.stdout or b"").decode() if isinstance(expired.stdout, bytes) else ""
        if os.path.exists(spec["result"]):
            with open(spec["result"]) as fh:
                return Outcome(**json.load(fh))
        logged = []
        if os.path.exists(spec["log"]):
            with open(spec["log"]) as fh:
                logged = [json.loads(line) for line in fh if line.strip()]
        stacks = open(spec["stacks"]).read() if os.path.exists(spec["stacks"]) else ""
        kind = "hang" if code is None else "crash"
        return Outcome(seed, model, compare, [e["action"] for e in logged], [e["words"] for e in logged],
                       f"{kind}: child exit {code}: {output[-1500:]}", kind, stacks=stacks + output[-3000:])


def shrink(failed: Outcome, budget_s: float = 300.0) -> Outcome:
    """The shortest sub-list of `failed.actions` found (ddmin) that still fails the same way."""
    deadline = time.monotonic() + budget_s
    best, actions, n = failed, list(failed.actions), 2

    def fails(candidate):
        outcome = run_child(failed.seed, 0.0, failed.model, failed.compare, candidate)
        return outcome if outcome.kind == failed.kind else None

    while len(actions) >= 2 and time.monotonic() < deadline:
        chunk = max(1, len(actions) // n)
        parts = [actions[i:i + chunk] for i in range(0, len(actions), chunk)]
        reduced = False
        for i in range(len(parts)):
            if time.monotonic() > deadline:
                break
            complement = [a for j, part in enumerate(parts) if j != i for a in part]
            outcome = fails(parts[i]) or (fails(complement) if len(parts) > 2 else None)
            if outcome is not None:
                best, actions = outcome, outcome.actions
                n = 2 if len(outcome.actions) < len(complement) else max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(actions):
                break
            n = min(len(actions), 2 * n)
    return best


def monkey(seeds, seconds: float, model: str, compare: bool = False, shrink_s: float = 300.0, progress=print,
           save: str | None = None):
    """Run each seed for `seconds`; the failures found (shrunk), and the longest stall seen. With
    `save` (a folder), each failure's outcome is written there as JSON before the shrink."""
    failures, longest = [], 0.0
    for seed in seeds:
        outcome = run_child(seed, seconds, model, compare)
        longest = max(longest, outcome.longest_stall)
        progress(outcome.describe().splitlines()[0][:300] + f" (longest GUI stall {outcome.longest_stall:.2f} s)")
        if outcome.failure and save:
            os.makedirs(save, exist_ok=True)
            with open(os.path.join(save, f"monkey_{os.path.basename(model)}_{seed}.json"), "w") as fh:
                json.dump(outcome.__dict__, fh, indent=1)
        if outcome.failure:
            shrunk = shrink(outcome, shrink_s) if shrink_s > 0 else outcome
            progress(shrunk.describe())
            failures.append(shrunk)
    return failures, longest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", metavar="SPEC.json", help=argparse.SUPPRESS)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--seconds", type=float, default=60.0, help="per seed")
    parser.add_argument("--model", default="four_bar", help="a preset name or a model file")
    parser.add_argument("--compare", action="store_true", help="start in compare mode")
    parser.add_argument("--replay", metavar="FILE", help="a JSON action list (as a failure prints) to replay")
    parser.add_argument("--shrink-seconds", type=float, default=300.0)
    parser.add_argument("--save", metavar="DIR", help="write each failure's outcome (JSON) here")
    args = parser.parse_args(argv)
    if args.child:
        from monkey_child import child_main

        with open(args.child) as fh:
            return child_main(json.load(fh))
    if args.replay:
        with open(args.replay) as fh:
            outcome = run_child(args.seeds[0], 0.0, args.model, args.compare, json.load(fh))
        print(outcome.describe())
        if outcome.failure and args.save:
            os.makedirs(args.save, exist_ok=True)
            with open(os.path.join(args.save, "replay.json"), "w") as fh:
                json.dump(outcome.__dict__, fh, indent=1)
        return 1 if outcome.failure else 0
    failures, _ = monkey(args.seeds, args.seconds, args.model, args.compare, args.shrink_seconds, save=args.save)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
