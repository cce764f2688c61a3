"""A mutation fuzzer for robot files (issue 31): mutated URDF and MJCF files through `eomlab import`,
then `eomlab run` on the model it wrote, each in a forked worker with a time bound (the command-line
fuzzer's machinery, cli_fuzzer.py).

A mutant passes when the import either refuses it (exit 2, one line on standard error, nothing
written) or writes a model that `eomlab run` runs (cli_fuzzer.judge); a model a run would refuse is
refused by the import itself (exit 2 unless `--write-anyway`), so a written model that the run
refuses is a finding. No traceback, no Python warning, no hang.

Mutations (1 to 3 per mutant) of the test mechanisms written as URDF and as MJCF (tests/engine/
robot_formats/robot_files.py): an element dropped, repeated or its children reordered; an attribute
dropped or written twice; a number made extreme, tiny or non-numeric; an entity defined and used
(an internal one, nested ones, an external SYSTEM one); an include leaving the folder, pointing to
itself or to a missing file; deep nesting (bodies or plain elements, hundreds to thousands deep).

    PYTHONPATH=tests:tests/engine/robot_formats .venv/bin/python tests/reliability/robot_fuzzer.py --seconds 600
"""
from __future__ import annotations

import argparse
import copy
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET  # noqa: S405 - writes the fuzzer's own documents; they are read with defusedxml
from collections import Counter
from dataclasses import dataclass

import defusedxml.ElementTree as DET

from cli_fuzzer import EXTREME_NUMBERS, Outcome, call_main, judge
from robot_files import MECHANISMS, mjcf, urdf

TIME_BOUND = 20.0
T_END = "0.05"
WORDS = ["", "abc", "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "0x10", "1,2", "1 2", "0 0 0 0 0 0 0", "--1",
         "1e", "true", "&#10;", "\u2028", "é"]


def seeds() -> list[tuple[str, str]]:
    """(name, text) of every test mechanism as URDF and as MJCF."""
    found = []
    for name, make in sorted(MECHANISMS.items()):
        links = make()
        found.append((f"{name}.urdf", urdf(name, links)))
        found.append((f"{name}.xml", mjcf(name, links, keyframe=True)))
    return found


def _numbers(text: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?", text)


def _mutate_tree(root, rng: random.Random, suffix: str) -> str:
    elements = [e for e in root.iter() if e.tag != "nest_here"]
    parents = {child: parent for parent in root.iter() for child in parent}
    kind = rng.choice(["drop", "repeat", "reorder", "drop_attribute", "number", "number", "number", "word",
                       "nest_body", "nest_plain"])
    target = rng.choice(elements[1:] or elements)
    if kind == "drop" and target in parents:
        parents[target].remove(target)
        return f"drop <{target.tag}>"
    if kind == "repeat" and target in parents:
        parent = parents[target]
        parent.insert(list(parent).index(target), copy.deepcopy(target))
        return f"repeat <{target.tag}>"
    if kind == "reorder" and len(target) > 1:
        children = list(target)
        rng.shuffle(children)
        for child in list(target):
            target.remove(child)
        target.extend(children)
        return f"reorder children of <{target.tag}>"
    with_attributes = [e for e in elements if e.attrib]
    if kind == "drop_attribute" and with_attributes:
        element = rng.choice(with_attributes)
        key = rng.choice(sorted(element.attrib))
        del element.attrib[key]
        return f"drop {element.tag}@{key}"
    numeric = [(e, k) for e in elements for k, v in e.attrib.items() if _numbers(v)]
    if kind in ("number", "word") and numeric:
        element, key = rng.choice(numeric)
        parts = element.attrib[key].split()
        i = rng.randrange(len(parts))
        parts[i] = rng.choice(WORDS) if kind == "word" else repr(rng.choice(EXTREME_NUMBERS + [1e-300, 1e200]))
        element.attrib[key] = " ".join(parts)
        return f"{kind} {element.tag}@{key} = {element.attrib[key]!r:.60}"
    depth = rng.choice([50, 300, 1000, 3000])
    bodies = [e for e in elements if e.tag == "body"] if suffix == ".xml" else []
    if kind == "nest_body" and bodies:  # written as text below: ElementTree itself recurses per level
        element = rng.choice(bodies)
        ET.SubElement(element, "nest_here", {"bodies": str(depth)})
        return f"nest {depth} bodies in {element.get('name')}"
    ET.SubElement(target, "nest_here", {"plain": str(depth), "tag": rng.choice(["frame", "x", "geom", "default"])})
    return f"nest {depth} plain elements in <{target.tag}>"


def _nested(match) -> str:
    """The text of a <nest_here/> placeholder: `bodies` nested bodies or `plain` nested elements."""
    attributes = dict(re.findall(r'(\w+)="([^"]*)"', match.group(0)))
    if "bodies" in attributes:
        n = int(attributes["bodies"])
        body = ('<body name="n{}" pos="0 0 -0.01"><joint type="hinge" axis="1 0 0"/>'
                '<inertial pos="0 0 0" mass="0.1" diaginertia="1e-3 1e-3 1e-3"/>')
        return "".join(body.format(k) for k in range(n)) + "</body>" * n
    n, tag = int(attributes["plain"]), attributes["tag"]
    return f"<{tag}>" * n + f"</{tag}>" * n


def _mutate_text(text: str, rng: random.Random, suffix: str) -> tuple[str, str]:
    """Mutations that a tree cannot hold: entities, repeated attributes, includes."""
    kind = rng.choice(["entity", "laughs", "external", "duplicate_attribute", "include"])
    root_tag = "mujoco" if suffix == ".xml" else "robot"
    if kind in ("entity", "laughs", "external"):
        numbers = _numbers(text)
        number = rng.choice(numbers) if numbers else "1"
        definition = {"entity": f'<!ENTITY e "{rng.choice(["1e308", "nan", "0.5", "&#10;", "1 2 3"])}">',
                      "laughs": '<!ENTITY a "1"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                                '<!ENTITY e "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">',
                      "external": '<!ENTITY e SYSTEM "file:///etc/hostname">'}[kind]
        text = text.replace(f'"{number}"', '"&e;"', 1) if f'"{number}"' in text else text.replace(
            f"<{root_tag}", f"<{root_tag} e='&e;'", 1)
        return f'<?xml version="1.0"?><!DOCTYPE {root_tag} [{definition}]>' + text, f"{kind} entity"
    if kind == "duplicate_attribute":
        match = rng.choice(list(re.finditer(r' (\w+)="([^"]*)"', text)) or [None])
        if match is None:
            return text, "duplicate attribute: none"
        return text[:match.end()] + f' {match.group(1)}="{rng.choice(WORDS + ["1"])}"' + text[match.end():], \
            f"duplicate attribute {match.group(1)}"
    where = rng.choice(["../../../../etc/passwd", "/etc/hostname", "mutant" + suffix, "missing.xml", "sub/../../x.xml",
                        "", "a\nb.xml"])
    include = f'<include file="{where}"/>'
    at = text.find(">", text.find(f"<{root_tag}")) + 1
    return text[:at] + include + text[at:], f"include {where!r}"


@dataclass
class Mutant:
    seed: int
    index: int
    source: str
    suffix: str
    mutations: list[str]
    text: str


def mutants(seed: int, count: int | None = None):
    rng = random.Random(seed)
    sources = seeds()
    index = 0
    while count is None or index < count:
        name, text = rng.choice(sources)
        suffix = os.path.splitext(name)[1]
        root = DET.fromstring(text)
        done = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            done.append(_mutate_tree(root, rng, suffix))
        text = re.sub(r"<nest_here [^>]*/>", _nested, ET.tostring(root, encoding="unicode"))
        if rng.random() < 0.3:
            text, what = _mutate_text(text, rng, suffix)
            done.append(what)
        yield Mutant(seed, index, name, suffix, done, text)
        index += 1


def _noisy(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "Traceback" in ln or re.search(r"\.py:\d+: \w*Warning", ln)
            or "warn(" in ln]


def check(mutant: Mutant, directory: str, bound: float = TIME_BOUND) -> tuple[str | None, str, str]:
    """(problem or None, what was said, the outcome's kind) for one mutant: import, then run what it wrote."""
    source = os.path.join(directory, "mutant" + mutant.suffix)
    out = os.path.join(directory, "mutant.eom.json")
    for stale in (out, os.path.join(directory, "mutant.csv")):
        if os.path.exists(stale):
            os.unlink(stale)
    with open(source, "w", encoding="utf-8") as fh:
        fh.write(mutant.text)
    code, stderr, escaped, seconds, interrupted = call_main(["import", source, "-o", out], bound)
    if escaped:
        return f"import escaped main: {escaped.strip().splitlines()[-1]}", escaped[-1500:], "import traceback"
    if interrupted or seconds > bound:
        return f"import took {seconds:.1f} s of CPU (bound {bound:g} s)", stderr[-500:], "import hang"
    if _noisy(stderr):
        return (f"import exit {code} with a warning or traceback: {_noisy(stderr)[0][:200]}", stderr[-800:],
                "import warning")
    lines = stderr.splitlines()
    if code == 2:
        if len(lines) != 1 or not lines[0].startswith("eomlab: "):
            return f"import exit 2 with {len(lines)} lines: {stderr[:300]!r}", stderr, "import multi-line refusal"
        if os.path.exists(out):
            return "import exit 2 but the model was written", stderr, "import refused but wrote"
        return None, stderr, "import refused (exit 2, one line)"
    if code != 0 or not os.path.exists(out):
        return f"import exit {code}, model written: {os.path.exists(out)}", stderr[-800:], f"import exit {code}"
    with open(out, encoding="utf-8") as fh:
        written = fh.read()
    from cli_fuzzer import run_mutant

    outcome: Outcome = run_mutant(written, directory, bound, T_END)
    if outcome.exit_code == 2 and not outcome.escaped:  # the import refuses what a run would (issue 31)
        return f"the imported model is refused by eomlab run: {outcome.stderr.strip()[:300]}", stderr, \
            "imported, run refused"
    problem = judge(outcome, bound)
    said = outcome.stderr[-800:] + outcome.escaped[-800:]
    if problem:
        return f"run of the imported model: {problem}", said, "run " + problem.split(":")[0].split(" with ")[0]
    kind = ("imported, slow run stopped at the bound" if outcome.interrupted else
            "imported, run stopped with its failure line" if outcome.exit_code == 1 else "imported and ran")
    return None, said, kind


def _mutation_kind(done: str) -> str:
    """The kind of one mutation from its description ("drop <joint>" -> "drop element")."""
    words = done.split()
    if words[0] == "drop":
        return "drop element" if words[1].startswith("<") else "drop attribute"
    if words[0] == "nest":
        return "nest bodies" if "bodies" in done else "nest plain elements"
    if words[-1] == "entity":
        return done
    return {"duplicate": "duplicate attribute", "reorder": "reorder children"}.get(words[0], words[0])


def _worker_init():
    global _WORKDIR
    import signal

    _WORKDIR = tempfile.mkdtemp(prefix="eomlab-robot-fuzz-")
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(item):
    mutant, bound = item
    problem, said, kind = check(mutant, _WORKDIR, bound)
    return mutant, problem, said, kind


def fuzz(seeds_: list[int], seconds: float | None = None, count: int | None = None, workers: int = 2,
         bound: float = TIME_BOUND, progress=None, tally: Counter | None = None):
    """(mutants run, [(mutant, problem, what was said)]) over the seeds, round robin. With `tally` (a
    Counter), the outcomes are counted there by kind, and the mutations applied by kind ("mutation: ...")."""
    sources = [mutants(s) for s in seeds_]

    def items():
        k = 0
        while count is None or k < count:
            yield next(sources[k % len(sources)]), bound
            k += 1

    ran, findings = 0, []
    deadline = None if seconds is None else time.monotonic() + seconds
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["eomlab.cli", "eomlab.engine.robot_formats", "eomlab.engine.simulation"])
    with context.Pool(workers, initializer=_worker_init, maxtasksperchild=100) as pool:
        for mutant, problem, said, kind in pool.imap_unordered(_work, items()):
            ran += 1
            if tally is not None:
                tally[kind] += 1
                tally.update("mutation: " + _mutation_kind(m) for m in mutant.mutations)
            if problem:
                findings.append((mutant, problem, said))
                if progress:
                    progress(f"seed {mutant.seed} #{mutant.index} {mutant.source} {mutant.mutations}: {problem}")
            if deadline is not None and time.monotonic() > deadline:
                pool.terminate()
                break
    return ran, findings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--save", metavar="DIR", help="write each failing mutant here")
    args = parser.parse_args(argv)
    start, tally = time.monotonic(), Counter()
    ran, findings = fuzz(args.seeds, seconds=args.seconds, workers=args.workers, progress=lambda s: print(s, flush=True),
                         tally=tally)
    print(f"{ran} robot-file mutants from seeds {args.seeds} in {time.monotonic() - start:.0f} s: {len(findings)} findings")
    for kind, n in sorted(tally.items()):
        print(f"  {n:6d}  {kind}")
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for mutant, problem, said in findings:
            name = f"seed{mutant.seed}_{mutant.index}_{mutant.source}"
            with open(os.path.join(args.save, name), "w", encoding="utf-8") as fh:
                fh.write(mutant.text)
            with open(os.path.join(args.save, name + ".txt"), "w", encoding="utf-8") as fh:
                fh.write(f"{mutant.mutations}\n{problem}\n{said}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
