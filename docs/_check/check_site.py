"""Open the built site (docs/_build/html) in headless Chromium and check every page as a reader sees it:
no console error and no failed load, every image loaded, the mathematics typeset (MathML present where the page has
formulas, no raw LaTeX in the text outside code), and every internal link and anchor resolving. Screenshots of the
home page, a tutorial and a formulation page go to docs/_build/check/ to be looked at.

    python docs/_check/check_site.py [--html docs/_build/html] [--browser chromium]

Chromium is driven through the DevTools protocol over a pipe (`--remote-debugging-pipe`: JSON messages ending in a
NUL byte on file descriptors 3 and 4), so nothing but the standard library is needed. Exit status 1 lists the
problems, one line each.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = {"index.html": "home.png", "tutorials/first-lecture.html": "tutorial.png",
               "explanations/formulations.html": "formulations.png"}
CODE = re.compile(r"^(```|~~~).*?^\1|`[^`\n]*`", re.M | re.S)  # fenced blocks and inline code spans
RAW_LATEX = re.compile(r"\\(frac|begin|mathbf|mathrm|dot|ddot|left|right|sum|alpha|lambda|omega)\b|\$\$")

PAGE_SCRIPT = r"""(() => {
  const images = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
  const walker = document.createTreeWalker(document.querySelector('article') || document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) {
    const n = walker.currentNode;
    if (!n.parentElement.closest('pre, code, script, style, math')) texts.push(n.textContent);
  }
  return JSON.stringify({images, maths: document.querySelectorAll('math').length, text: texts.join(' ')});
})()"""


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def _parse(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def link_problems(html: Path) -> list[str]:
    problems, parsed = [], {}
    pages = sorted(p for p in html.rglob("*.html") if "_static" not in p.parts)
    for page in pages:
        parsed[page] = _parse(page)
    for page in pages:
        for href in parsed[page].hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("mailto:", "//")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(html)}: link to a missing file {href}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed.get(target) or _parse(target)
                if unquote(parts.fragment) not in ids.ids:
                    problems.append(f"{page.relative_to(html)}: link to a missing anchor {href}")
    return problems


class Browser:
    """Headless Chromium over the DevTools pipe."""

    def __init__(self, executable: str):
        self.profile = tempfile.mkdtemp(prefix="eomlab-docs-check-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire():  # in the child: its fd 3 reads what we write, its fd 4 writes what we read
            read, write = os.dup(to_browser_r), os.dup(from_browser_w)  # out of the way of 3 and 4 first
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--window-size=1280,900", "--hide-scrollbars", f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    def _read(self) -> dict:
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, session: bool = False, **params) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read())

    def open(self, url: str) -> list[str]:
        """Load `url`; the console errors, exceptions and failed loads it gave."""
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                errors.append(params["exceptionDetails"].get("text", "exception"))
            elif event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                errors.append(" ".join(str(a.get("value", "")) for a in params.get("args", [])))
            elif event.get("method") == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(params["entry"].get("text", "error"))
        return errors

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)["result"]["value"]

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def has_formulas(markdown: str) -> bool:
    """Whether a page's source holds dollar maths: a `$` outside code (`$EOMLAB_CACHE_DIR` in backticks is not)."""
    return "$" in CODE.sub("", markdown)


def page_problems(browser: Browser, html: Path, page: Path, shots: Path) -> list[str]:
    name = page.relative_to(html).as_posix()
    problems = [f"{name}: console: {e}" for e in browser.open(page.as_uri())]
    found = json.loads(browser.evaluate(PAGE_SCRIPT))
    problems += [f"{name}: image did not load: {src}" for src in found["images"]]
    raw = RAW_LATEX.search(found["text"])
    if raw:
        problems.append(f"{name}: raw LaTeX in the text: …{found['text'][max(0, raw.start() - 40):raw.end() + 20]}…")
    source = ROOT / "docs" / Path(name).with_suffix(".md")
    if source.is_file() and has_formulas(source.read_text(encoding="utf-8")) and found["maths"] == 0:
        problems.append(f"{name}: the page has formulas but no MathML")
    if name in SCREENSHOTS:  # at the first displayed formula, if the page has one
        browser.evaluate("(() => { const m = document.querySelector('div.math-block'); "
                         "if (m) m.scrollIntoView({behavior: 'instant', block: 'center'}); return 0; })()")
        browser.screenshot(shots / SCREENSHOTS[name])
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "docs" / "_build" / "html")
    parser.add_argument("--browser", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    args = parser.parse_args(argv)
    html = args.html.resolve()
    shots = html.parent / "check"
    shots.mkdir(parents=True, exist_ok=True)
    pages = sorted(p for p in html.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html", "search.html"))
    problems = link_problems(html)
    browser = Browser(args.browser)
    try:
        for page in pages:
            problems += page_problems(browser, html, page, shots)
    finally:
        browser.close()
    print("\n".join(problems))
    print(f"site check: {len(pages)} pages, {len(problems)} problems (screenshots in {shots})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
