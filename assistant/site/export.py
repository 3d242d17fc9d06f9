"""The static export: the whole site as files any static host serves.

Pages are written as `<path>/index.html` (so `/glossary/nvlink`, the URL citations use, is
served by any host that maps a folder to its index.html, `python -m http.server` included),
with the widget and the calculators' API on the running assistant's URL. A file is written
only when its bytes changed, and files a previous build wrote that the site no longer has are
removed (only those: the build keeps a list in `.glossary-site.json`). `llms.txt` and
`llms-full.txt` (see llms.py) are written beside `index.html`.

Example:
    >>> report = build_site(load_corpus("corpus"), Path("public"), "https://assistant.example")
    >>> report.summary()          # the second time: "wrote 0 files, 84 unchanged, ..."
    'wrote 84 files, 0 unchanged, 0 removed: 84 files, 1.4 MB in public (0.38 s)'
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.corpus import Corpus

from .anchors import StaffAnswer
from .llms import llms_files
from .pages import Site

MANIFEST = ".glossary-site.json"
_SAFE = re.compile(r"[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*")


@dataclass
class BuildReport:
    """What a build did: files written, left as they were, and removed."""

    out_dir: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    total_bytes: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """Say in one line what the build did."""
        files = len(self.written) + len(self.unchanged)
        return (f"wrote {len(self.written)} files, {len(self.unchanged)} unchanged, "
                f"{len(self.removed)} removed: {files} files, "
                f"{self.total_bytes / 1e6:.1f} MB in {self.out_dir} ({self.seconds:.2f} s)")


def check_url(url: str) -> str:
    """Return the assistant's URL without a trailing slash; raise ValueError if unusable."""
    url = url.strip().rstrip("/")
    if not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", url):
        raise ValueError(f"--assistant-url must be an http(s) URL such as "
                         f"https://assistant.example.com (got {url!r})")
    return url


def build_site(corpus: Corpus, out_dir: Path, assistant_url: str, base_path: str = "",
               staff: Sequence[StaffAnswer] = ()) -> BuildReport:
    """Write the static site into `out_dir`, rewriting only what changed; return a report.

    `staff` are the published staff answers to show on their pages (the CLI reads the log's).
    """
    started = time.perf_counter()
    published = list(staff)
    site = Site(corpus, assistant_url=check_url(assistant_url), static=True,
                base_path=base_path, staff=lambda: published)
    files = {**site.files(), **llms_files(site)}  # links site-relative: the host is unknown
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = BuildReport(out_dir=out)
    for rel, data in sorted(files.items()):
        if not _SAFE.fullmatch(rel) or ".." in rel:
            raise ValueError(f"refusing to write {rel!r}: a page slug must be lower-case "
                             f"words joined by hyphens")
        report.total_bytes += len(data)
        if _write(out / rel, data):
            report.written.append(rel)
        else:
            report.unchanged.append(rel)
    for rel in sorted(set(_previous(out)) - set(files)):
        path = out / rel
        if _SAFE.fullmatch(rel) and ".." not in rel and path.is_file():
            path.unlink()
            report.removed.append(rel)
            _prune(path.parent, out)
    _write(out / MANIFEST, (json.dumps(sorted(files), indent=1) + "\n").encode())
    report.seconds = time.perf_counter() - started
    return report


def _write(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # a host serving the folder never sees half a file
    return True


def _previous(out: Path) -> list[str]:
    try:
        listed = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(x) for x in listed] if isinstance(listed, list) else []


def _prune(folder: Path, root: Path) -> None:
    # Remove folders the removed page leaves empty, never the output folder itself.
    while folder != root and root in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
