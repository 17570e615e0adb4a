"""Screenshots of the analysis board, taken from the running server (docs/board.md).

    .venv/bin/python docs/board_screenshots.py [OUT_DIR]     # default: docs/images

Starts ``qwirkle-core serve`` on a free port, drives the system's headless Chromium
(Debian's ``chromium`` and ``chromium-driver``) with Selenium, and saves two PNGs:
``board-play.png`` (a mid-game position in the player's view: a tile selected, its
legal cells lit, a move put down with its score, the suggestions) and
``board-referee.png`` (the referee's view: every hand and the bag, a suggestion drawn
on hover, simulated win probabilities).  Rerun it after changing the page, so that
the pictures stay true.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from qwirkle_core import Game
from qwirkle_core.bots import make_bot
from tests.browser import Server, browser, missing, open_board, settled, wait_for


def mid_game(turns: int = 14, seed: int = 3) -> Game:
    """A two-player game after ``turns`` greedy turns."""
    game, bot = Game(players=2, seed=seed), make_bot("greedy", seed=seed)
    for _ in range(turns):
        game.push(bot.choose(game))
    return game


def main(out: Path) -> int:
    reason = missing()
    if reason:
        print(f"board_screenshots: cannot take them: {reason}", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    # A record, so that the move list and the last turn's ring show too.
    record = json.dumps(mid_game().to_record())
    server = Server()
    driver = browser(1400, 1250)
    try:
        open_board(driver, server.url)
        driver.execute_script("return window.qwirkle.load(arguments[0])", record)
        settled(driver)
        # Put down the best move's first tile, then select a tile: its cells light up.
        best = driver.execute_script("return window.qwirkle.state.suggestions[0]")
        driver.execute_script(
            "const q = window.qwirkle; const m = arguments[0];"
            "const [r, c, co, sh] = m.placements[0];"
            "const i = q.state.summary.hand.findIndex(([a, b]) => a === co && b === sh);"
            "document.querySelector(`#hand .hand-tile[data-index='${i}']`).click();",
            best,
        )
        r, c = best["placements"][0][:2]
        click_cell(driver, r, c)
        wait_for(driver, "return document.getElementById('preview').textContent !== ''")
        settled(driver)
        # A tile that fits with it, so that its cells light up.
        driver.execute_script(
            "const q = window.qwirkle; const used = new Set(q.state.pending.map((p) => p.index));"
            "const free = [...document.querySelectorAll('#hand .hand-tile')].filter((b) => !used.has(Number(b.dataset.index)));"
            "(free.find((b) => q.litCells(Number(b.dataset.kind)).length) || free[0]).click();"
        )
        driver.save_screenshot(str(out / "board-play.png"))

        driver.execute_script("return window.qwirkle.setReferee(true)")
        settled(driver)
        driver.execute_script("return window.qwirkle.simulate()")
        settled(driver, 60)
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(driver).move_to_element(driver.find_element("css selector", "#suggestions tr")).perform()
        driver.save_screenshot(str(out / "board-referee.png"))
    finally:
        driver.quit()
        server.close()
    for name in ("board-play.png", "board-referee.png"):
        print(out / name)
    return 0


def click_cell(driver: object, r: int, c: int) -> None:
    """A click on the board's cell (r, c), as a person's pointer makes it."""
    from selenium.webdriver.common.action_chains import ActionChains

    cell = driver.find_element("css selector", f"rect.cell[data-cell='{r},{c}']")  # type: ignore[attr-defined]
    ActionChains(driver).move_to_element(cell).click().perform()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "images"))
