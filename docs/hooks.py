"""mkdocs hook: the repository's README.md is the site's home page.

The README stays where a clone and a code host show it first, and is not copied into docs/:
one text, read in both places. Its links are written from the repository root
(``docs/guides/feed.md``) and the pages' links back to it from theirs (``../../README.md``), so
that both read right on the code host; here they are rewritten to the site's paths, and mkdocs
then checks every one of them in strict mode.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
HOME = "index.md"

#: An inline link's or image's target, relative (no scheme, not an anchor alone).
_TARGET = re.compile(r"(\]\()(?![a-z][a-z0-9+.-]*:|#)([^)\s]+)(\))")


def on_files(files: Files, config: MkDocsConfig, **_: Any) -> Files:
    files.append(File.generated(config, HOME, abs_src_path=str(README)))
    return files


def on_page_markdown(
    markdown: str, page: Page, config: MkDocsConfig, files: Files, **_: Any
) -> str:
    src_uri = page.file.src_uri
    if src_uri == HOME:
        return _TARGET.sub(lambda m: m[1] + _from_root(m[2]) + m[3], markdown)
    return _TARGET.sub(lambda m: m[1] + _to_home(src_uri, m[2]) + m[3], markdown)


def _from_root(target: str) -> str:
    """A README link (from the repository root) as the home page's (from docs/)."""
    return target.removeprefix("docs/")


def _to_home(src_uri: str, target: str) -> str:
    """A page's link to the README, if it is one, as a link to the home page."""
    path, hash_, fragment = target.partition("#")
    where = posixpath.dirname(src_uri)
    if posixpath.normpath(posixpath.join("docs", where, path)) != "README.md":
        return target
    return posixpath.relpath(HOME, where or ".") + hash_ + fragment
