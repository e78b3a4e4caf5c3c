"""`verdict rank --report`: the page parses as well-formed HTML (every element closed in
order), refers to nothing outside itself, and for `--method all` carries every board,
the side-by-side table and the list of models whose rank differs between methods; the
same for the page of `verdict demo`, whose contents link only within the page."""

from __future__ import annotations

from html.parser import HTMLParser

from _support import LOG, cli, saved_results

VOID = {"meta", "br", "img", "hr", "input", "link", "line", "circle", "rect", "path"}


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.sections: list[str] = []
        self.svgs = 0
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            in_page = name == "href" and (value or "").startswith("#")
            if (name in ("src", "href") and not in_page) or (
                    value and "url(" in value and "url(#" not in value):
                self.errors.append(f"external reference {name}={value!r}")
        if tag == "svg":
            self.svgs += 1
            size = dict(attrs)
            if float(size["width"]) <= 0 or float(size["height"]) <= 0:
                self.errors.append(f"an SVG of size {size['width']} x {size['height']}")
        if tag == "h2":
            self._in_h2 = True
            self.sections.append("")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._in_h2:
            self.sections[-1] += data


def well_formed(page) -> tuple:
    """The page parsed: its checker (no error, every element closed) and its text."""
    checker = Checker()
    text = page.read_text()
    checker.feed(text)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []
    return checker, text


def test_the_all_report_is_well_formed_and_complete(tmp_path) -> None:
    page = tmp_path / "all.html"
    cli("rank", str(LOG), "--method", "all", "--allow-unobserved", "--bootstrap", "50",
        "--matrix", "--report", str(page))
    checker, _ = well_formed(page)
    for section in ("Side by side", "Where the methods disagree", "Leaderboard: bradley-terry",
                    "Leaderboard: elo", "Leaderboard: maximal-lottery", "Matrices: bradley-terry"):
        assert section in checker.sections, (section, checker.sections)
    # Three scores figures and, for 59 models, the heatmaps of the three boards.
    assert checker.svgs >= 6
    assert page.stat().st_size < 5_000_000


def test_the_demo_page_is_well_formed_and_links_only_within_itself(tmp_path) -> None:
    page = tmp_path / "demo-report.html"
    cli("demo", "--out", str(page))
    _, text = well_formed(page)
    for anchor in ("tutorial", "lottery", "nasheval", "judges", "judge-run"):
        assert f'href="#{anchor}"' in text and f'id="{anchor}"' in text
    assert page.stat().st_size < 5_000_000


def test_saved_results_make_one_well_formed_page(tmp_path) -> None:
    page = tmp_path / "saved.html"
    cli("report", *map(str, saved_results(tmp_path)), "--out", str(page))
    checker, text = well_formed(page)
    for anchor in ("result-1", "result-2", "result-3", "result-4"):
        assert f'href="#{anchor}"' in text and f'id="{anchor}"' in text
    for section in ("Side by side", "Who beats whom in the winner set", "Error against budget",
                    "Allocation: scored calls per item and judge"):
        assert section in checker.sections, (section, checker.sections)
