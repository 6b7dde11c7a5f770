"""The HTML report: its structure from the stored quick run (every image a PNG on disk, a table per claim, every
string escaped), and the page in a real browser (headless Chromium: every image decoded, the tables rendered, a
screenshot that is not blank)."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gentheory.verify.figures import load_figures
from gentheory.verify.report_html import FIGURE_DPI, write_html_report

#: the claims of two studies: the page for them renders every figure that draws only these claims
STUDIES = ("grokking", "strata")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.sections: list[str] = []
        self.tables = 0
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "img":
            self.images.append(a)
        elif tag == "section":
            self.sections.append(str(a.get("id")))
        elif tag == "table":
            self.tables += 1
        elif tag == "script":
            self.scripts += 1


def _page(quick_results, tmp_path: Path, tamper: bool = False) -> tuple[Path, list]:
    store, verdicts = quick_results
    chosen = [v for cid, v in sorted(verdicts.items()) if cid.split(".")[0] in STUDIES]
    if tamper:
        # a hostile statement, and one verdict turned into a refuted finding (its first rival the paper's statement)
        chosen[0] = dataclasses.replace(chosen[0], statement="<script>alert(1)</script> & <b>bold</b>")
        first = chosen[1]
        chosen[1] = dataclasses.replace(first, status="REFUTED", rivals=[
            dataclasses.replace(first.rivals[0], paper=True, statement="The paper's <i>claim</i>.")] + first.rivals[1:])
    return write_html_report(chosen, store, tmp_path / "html"), chosen


def test_html_report_structure(quick_results, tmp_path: Path) -> None:
    page, chosen = _page(quick_results, tmp_path, tamper=True)
    text = page.read_text(encoding="utf-8")
    parsed = _Page()
    parsed.feed(text)
    assert parsed.sections == [v.claim for v in chosen]
    assert parsed.tables == 1 + len(chosen)  # the verdict table and one table of compared numbers per claim
    assert parsed.scripts == 0 and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in text
    refuted = text.split("<h2>Refuted findings</h2>", 1)[1].split("</ul>", 1)[0]
    assert f'href="#{chosen[1].claim}"' in refuted and "The paper&#x27;s &lt;i&gt;claim&lt;/i&gt;." in refuted
    refuted_count = sum(v.status == "REFUTED" for v in chosen)  # the tampered one and the studies' own findings
    assert refuted_count >= 1 and f"claims PASS and {refuted_count} REFUTED" in text
    expected = {name for name, spec in load_figures().items()
                if spec.claims and {c.split(".")[0] for c in spec.claims} <= set(STUDIES)}
    shown = {Path(str(img["src"])).stem for img in parsed.images}
    assert shown == expected and expected
    for img in parsed.images:
        png = page.parent / str(img["src"])
        header = png.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n", png
        assert int(str(img["width"])) == round(int.from_bytes(header[16:20], "big") / FIGURE_DPI * 96 * 1.5)
        assert str(img["alt"]).startswith(f"Figure {png.stem}.")
    assert "http://" not in text and "https://" not in text  # nothing loads from the network


_PROBE = """<!doctype html><html><head><title>pending</title></head><body>
<iframe id="report" src="{src}" style="width:1400px;height:900px"></iframe>
<script>
document.getElementById("report").onload = function () {{
  const doc = this.contentDocument;
  const images = Array.from(doc.images);  // the load event waits for every image: loaded or failed by now
  const result = {{images: images.length,
                   failed: images.filter(img => !img.complete || img.naturalWidth === 0).map(img => img.src),
                   widths: images.map(img => img.naturalWidth),
                   rows: Array.from(doc.querySelectorAll("table")).map(t => t.rows.length),
                   table_width: doc.querySelector("table").getBoundingClientRect().width}};
  document.getElementById("result").textContent = JSON.stringify(result);
}};
</script><pre id="result"></pre></body></html>
"""


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="needs the chromium binary (Debian/Ubuntu: apt-get install chromium)")
def test_html_report_in_headless_chromium(quick_results, tmp_path: Path) -> None:
    page, chosen = _page(quick_results, tmp_path)
    probe = page.parent / "probe.html"
    probe.write_text(_PROBE.format(src=page.name), encoding="utf-8")
    flags = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
             "--virtual-time-budget=20000", "--hide-scrollbars"]
    dom = subprocess.run([*flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=180).stdout
    result = json.loads(dom.split('<pre id="result">', 1)[1].split("</pre>", 1)[0])
    assert result["images"] > 0 and result["failed"] == [], result
    assert all(w > 0 for w in result["widths"])
    assert result["rows"][0] == 1 + len(chosen) and all(r >= 2 for r in result["rows"][1:])
    assert result["table_width"] > 600  # the verdict table laid out, not collapsed
    shot = tmp_path / "page.png"
    subprocess.run([*flags, "--window-size=1400,2400", f"--screenshot={shot}", page.as_uri()], capture_output=True,
                   timeout=180, check=True)
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[:2] == (2400, 1400) and float(pixels[..., :3].std()) > 0.05  # text and figures, not blank
