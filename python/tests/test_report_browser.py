"""Reports opened in a real browser (Debian's headless Chromium, installed by
scripts/setup.sh): the page loads without a console error, every section is there,
every figure has a size, and a screenshot is kept under target/report-screenshots for
a person to look at (not committed)."""

from __future__ import annotations

import os
import shutil

import pytest

from _support import LOG, ROOT, cli, saved_results

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = ROOT / "target" / "report-screenshots"

webdriver = pytest.importorskip("selenium.webdriver")


@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.fail("Chromium and ChromeDriver are missing: run scripts/setup.sh")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1200,1600"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def _open(browser, page, shot: str) -> dict:
    browser.get(page.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    sections = browser.execute_script(
        "return [...document.querySelectorAll('h2')].map(h => h.textContent)")
    sizes = browser.execute_script(
        "return [...document.querySelectorAll('svg')].map(s => {"
        " const r = s.getBoundingClientRect(); return [s.getAttribute('class'), r.width, r.height]; })")
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / shot))
    return {"errors": errors, "sections": sections, "sizes": sizes}


def test_arena_report_in_the_browser(browser, tmp_path) -> None:
    page = tmp_path / "arena.html"
    cli("rank", str(LOG), "--method", "all", "--allow-unobserved", "--bootstrap", "50",
        "--report", str(page))
    seen = _open(browser, page, "arena.png")
    assert seen["errors"] == []
    for section in ("Side by side", "Where the methods disagree", "Leaderboard: bradley-terry",
                    "Leaderboard: elo", "Leaderboard: maximal-lottery",
                    "Who beats whom in the winner set", "Matrices: bradley-terry"):
        assert section in seen["sections"], (section, seen["sections"])
    assert len(seen["sizes"]) >= 6
    for kind, width, height in seen["sizes"]:
        assert width > 0 and height > 0, (kind, width, height)


def test_game_report_in_the_browser(browser, tmp_path) -> None:
    matrix = tmp_path / "rps.csv"
    matrix.write_text(",r,p,s\nr,0,-1,1\np,1,0,-1\ns,-1,1,0\n")
    page = tmp_path / "game.html"
    cli("game", str(matrix), "--report", str(page))
    seen = _open(browser, page, "game.png")
    assert seen["errors"] == []
    assert seen["sections"] == ["Certificate", "Equilibrium", "Who beats whom in the winner set",
                                "Payoffs (row against column), agents by probability"]
    assert [kind for kind, _, _ in seen["sizes"]] == ["beaten-by", "heatmap margins"]
    assert all(w > 0 and h > 0 for _, w, h in seen["sizes"])


def test_demo_report_in_the_browser(browser, tmp_path) -> None:
    page = tmp_path / "demo-report.html"
    cli("demo", "--out", str(page))
    seen = _open(browser, page, "demo.png")
    assert seen["errors"] == []
    parts = browser.execute_script(
        "return [...document.querySelectorAll('article.part > h2')].map(h => h.textContent)")
    assert parts == ["The arena tutorial", "A maximal lottery where preferences cycle",
                     "Each context's winners, learned from selective feedback (NashEval)",
                     "Judges under a budget", "One judging run, from its ledger"]
    for section in ("Side by side", "Who beats whom in the winner set", "Against the truth",
                    "Who wins where, by language", "Propensities per menu", "Network training",
                    "Error against budget", "Spend per judge", "Spend per item",
                    "Allocation: scored calls per item and judge"):
        assert section in seen["sections"], (section, seen["sections"])
    kinds = [kind for kind, _, _ in seen["sizes"]]
    for kind in ("leaderboard", "beaten-by", "heatmap winner-shares", "propensities",
                 "training-curve", "bars judge-spend", "heatmap calls"):
        assert kind in kinds, (kind, kinds)
    for kind, width, height in seen["sizes"]:
        assert width > 0 and height > 0, (kind, width, height)
    # Each part's own screenshot, for a person to look at.
    from selenium.webdriver.common.by import By

    for part in browser.find_elements(By.CSS_SELECTOR, "article.part"):
        part.screenshot(str(SHOTS / f"demo-{part.get_attribute('id')}.png"))


def test_saved_results_report_in_the_browser(browser, tmp_path) -> None:
    page = tmp_path / "saved.html"
    cli("report", *map(str, saved_results(tmp_path)), "--out", str(page))
    seen = _open(browser, page, "saved-results.png")
    assert seen["errors"] == []
    parts = browser.execute_script(
        "return [...document.querySelectorAll('article.part > h2')].map(h => h.textContent)")
    assert [p.split(":")[0] for p in parts] == [
        "Leaderboard", "Equilibrium of a payoff matrix", "Judges under a budget",
        "A judging run"]
    kinds = [kind for kind, _, _ in seen["sizes"]]
    for kind in ("leaderboard", "heatmap win-probability", "beaten-by", "heatmap margins",
                 "bars judge-spend", "heatmap calls"):
        assert kind in kinds, (kind, kinds)
    for kind, width, height in seen["sizes"]:
        assert width > 0 and height > 0, (kind, width, height)
