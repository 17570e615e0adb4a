"""The analysis board in a real browser: headless Chromium (Debian's chromium and
chromium-driver) under Selenium, against ``qwirkle-core serve`` in a child process.

One server and one browser for the module.  Each test compares what the page shows
with what the library says of the same position.  The speed of the page (a click on
a tile to its cells lit, a mid-game position's full move list) is measured and
printed (``-s`` shows it; docs/performance.md has the figures), never asserted.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest

from qwirkle_core import Action, Game
from qwirkle_core.bots import make_bot
from qwirkle_core.errors import IllegalMoveError
from tests.browser import Server, browser, missing, open_board, wait_for

pytestmark = pytest.mark.process

REASON = missing()
if REASON:
    pytest.skip(f"no browser test: {REASON}", allow_module_level=True)

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

TIMINGS: dict[str, list[float]] = {"click_to_lit": [], "click_to_frame": [], "full_move_list": []}


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    server = Server()
    driver = None
    try:
        driver = browser(1400, 1000)
        open_board(driver, server.url)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        server.close()
    figures = {k: f"median {statistics.median(v):.2f} ms, max {max(v):.2f} ms over {len(v)}" for k, v in TIMINGS.items() if v}
    print(f"\nanalysis board timings (headless Chromium): {figures}")


def settled(driver: Any, also: str = "true") -> None:
    """Wait until the page runs no engine request and ``also`` (JS) holds.  The bound
    only ends a hung test: a busy machine, or kernels compiled on first use, take long."""
    wait_for(driver, f"const q = window.qwirkle; return !q.state.busy && q.idle() && ({also});", 120)


def state(driver: Any) -> Any:
    return driver.execute_script(
        "const s = window.qwirkle.state; return {summary: s.summary, board: s.board, history: s.history,"
        " redo: s.redo, pending: s.pending, error: document.getElementById('error').textContent,"
        " preview: document.getElementById('preview').textContent};"
    )


def shown_scores(driver: Any) -> list[int]:
    """The scores as the page shows them: the #scores table's third column."""
    rows = driver.find_elements(By.CSS_SELECTOR, "#scores tr[data-seat]")
    return [int(row.find_elements(By.TAG_NAME, "td")[2].text) for row in rows]


def shown_turns(driver: Any) -> list[str]:
    """The move list as the page shows it, the turns undone too."""
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]


def load(driver: Any, text: str) -> None:
    """Paste a position string or a record into the box and press Load."""
    driver.execute_script("document.getElementById('io').value = arguments[0];", text)
    driver.find_element(By.ID, "load").click()
    settled(driver, "document.getElementById('io-note').textContent.startsWith('loaded')")
    driver.execute_script("document.getElementById('io-note').textContent = '';")


def greedy_game(turns: int | None, seed: int) -> Game:
    game, bot = Game(players=2, seed=seed), make_bot("greedy", seed=seed)
    while not game.is_over and (turns is None or game.turn_count < turns):
        game.push(bot.choose(game))
    return game


def hand_json(game: Game) -> list[list[int]]:
    return [t.as_json() for t in game.hand()]


def click_hand(driver: Any, kind: int) -> None:
    button = driver.find_element(By.CSS_SELECTOR, f"#hand .hand-tile[data-kind='{kind}']:not(.used)")
    button.click()


def click_cell(driver: Any, r: int, c: int) -> None:
    cell = driver.find_element(By.CSS_SELECTOR, f"rect.cell[data-cell='{r},{c}']")
    ActionChains(driver).move_to_element(cell).click().perform()
    settled(driver)


def lit(driver: Any) -> set[tuple[int, int]]:
    cells = driver.execute_script(
        "return [...document.querySelectorAll('rect.lit')].map((e) => [Number(e.dataset.row), Number(e.dataset.col)]);"
    )
    return {(r, c) for r, c in cells}


def place(driver: Any, placements: list[tuple[int, int, Any]]) -> None:
    """Put tiles down one by one as a person does: a hand tile, then its cell."""
    for r, c, tile in placements:
        click_hand(driver, tile.kind)
        click_cell(driver, r, c)


def test_new_game_against_greedy(page: Any) -> None:
    Select(page.find_element(By.ID, "players")).select_by_value("2")
    page.execute_script("document.getElementById('seed').value = '5';")
    Select(page.find_element(By.ID, "seat-0")).select_by_value("human")
    Select(page.find_element(By.ID, "seat-1")).select_by_value("greedy")
    page.find_element(By.ID, "new").click()
    settled(page, "window.qwirkle.state.summary.to_move === 0 && window.qwirkle.state.seats[1] === 'greedy'")
    game = Game(players=2, seed=5)

    def bots_turns() -> None:  # the engine's "best" with a bot seeds it as make_bot does
        while not game.is_over and game.to_move == 1:
            game.push(make_bot("greedy", seed=5, seat=1).choose(game))

    bots_turns()
    shown = state(page)
    assert shown["summary"]["hand"] == hand_json(game) and shown_scores(page) == game.scores
    assert "Seat 0 to move" in page.find_element(By.ID, "turn").text
    # The human's move through the page, then greedy's answer.
    before = (game.turn_count, game.scores, hand_json(game))
    best = game.legal_moves().best()
    assert best is not None
    place(page, best.placements)
    assert f": {best.score} point" in state(page)["preview"]
    page.find_element(By.ID, "play").click()
    settled(page, "window.qwirkle.state.summary.to_move === 0 || window.qwirkle.state.summary.over")
    game.push(best)
    bots_turns()
    shown = state(page)
    assert shown_scores(page) == game.scores and shown["summary"]["hand"] == hand_json(game)
    assert sorted(shown["board"]) == sorted(game.board.to_json())
    assert [turn["action"] for turn in shown["history"]] == [turn.to_json()["action"] for turn in game.history]
    # A takeback against a bot goes back over its turn to the person's.
    if not game.is_over:
        page.find_element(By.TAG_NAME, "body").send_keys("u")
        settled(page, f"window.qwirkle.state.history.length === {before[0]}")
        shown = state(page)
        assert (len(shown["history"]), shown_scores(page), shown["summary"]["hand"]) == before
        assert shown["summary"]["to_move"] == 0 and len(shown["redo"]) == game.turn_count - before[0]


def test_lit_cells_are_the_library_s_legal_cells(page: Any) -> None:
    game = greedy_game(14, seed=3)
    load(page, game.to_string())
    moves = game.legal_moves()
    for tile in dict.fromkeys(game.hand()):  # each kind once
        click_hand(page, tile.kind)
        expected = {(r, c) for move in moves for r, c, t in move.placements if t == tile}
        assert lit(page) == expected, tile
        click_hand(page, tile.kind)  # unselected: nothing lit
        assert lit(page) == set()
    # Keyboard: 1 selects the first tile, Escape clears.
    page.find_element(By.TAG_NAME, "body").send_keys("1")
    first = game.hand()[0]
    assert lit(page) == {(r, c) for move in moves for r, c, t in move.placements if t == first}
    page.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    # One tile of a longer move put down: a second tile lights only the cells where it
    # joins that tile in a legal move.
    move = next(m for m in moves.sorted() if len({t for _, _, t in m.placements}) >= 2)
    r1, c1, t1 = move.placements[0]
    click_hand(page, t1.kind)
    click_cell(page, r1, c1)
    for tile in dict.fromkeys(t for t in game.hand() if t != t1):
        click_hand(page, tile.kind)
        expected = {
            (r, c) for m in moves if (r1, c1, t1) in m.placements for r, c, t in m.placements if t == tile and (r, c) != (r1, c1)
        }
        assert lit(page) == expected, tile
        click_hand(page, tile.kind)
    page.find_element(By.ID, "clear").click()
    timings = page.execute_script("return window.qwirkle.state.timings")
    TIMINGS["click_to_lit"] += timings["lit"]
    TIMINGS["click_to_frame"] += timings["litFrame"]
    page.execute_script("window.qwirkle.state.timings.lit = []; window.qwirkle.state.timings.litFrame = [];")
    print(f"\nclick -> cells lit: {sorted(timings['lit'])} ms (to the next frame: {sorted(timings['litFrame'])} ms)")


def test_a_placed_move_scores_what_board_score_says(page: Any) -> None:
    game = greedy_game(16, seed=8)
    load(page, game.to_string())
    move = next(m for m in game.legal_moves().sorted() if len(m) >= 2)
    score = game.board.score(move)
    mover = game.to_move
    turns = len(state(page)["history"])  # a position string holds no history: 0
    place(page, move.placements)
    assert state(page)["preview"].endswith(f": {score} point{'s' if score != 1 else ''}")
    page.find_element(By.ID, "play").click()
    settled(page, f"window.qwirkle.state.history.length === {turns + 1}")
    game.push(move)
    shown = state(page)
    assert shown_scores(page)[mover] == game.scores[mover]
    assert shown["history"][-1]["score"] == score
    assert sorted(shown["board"]) == sorted(game.board.to_json())


def test_undo_restores_the_position_string(page: Any) -> None:
    game = greedy_game(10, seed=11)
    load(page, game.to_string())
    # The player's view shows no hidden tile, and saving a position needs the referee.
    assert "hands" not in state(page)["summary"] and not page.find_element(By.ID, "save-position").is_enabled()
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position !== undefined")
    before = page.find_element(By.ID, "position-string").text
    turns = len(state(page)["history"])
    assert before == game.to_string()
    assert page.find_element(By.ID, "seed-shown").text == "none"  # a position string has no seed
    # A one-tile move by keyboard: a digit, the arrows to its cell, Enter twice.
    moves = game.legal_moves()
    single = next(m for m in moves.sorted() if len(m) == 1)
    r, c, tile = single.placements[0]
    cursor = page.execute_script("return window.qwirkle.state.cursor")
    body = page.find_element(By.TAG_NAME, "body")
    body.send_keys(str(game.hand().index(tile) + 1))
    dr, dc = r - cursor["r"], c - cursor["c"]
    body.send_keys((Keys.ARROW_DOWN if dr > 0 else Keys.ARROW_UP) * abs(dr) + (Keys.ARROW_RIGHT if dc > 0 else Keys.ARROW_LEFT) * abs(dc))
    body.send_keys(Keys.ENTER)
    settled(page)
    assert len(state(page)["pending"]) == 1
    body.send_keys(Keys.ENTER)
    settled(page, f"window.qwirkle.state.history.length === {turns + 1}")
    after = game.copy()
    after.push(single)
    assert page.find_element(By.ID, "position-string").text == after.to_string()
    body.send_keys("u")
    settled(page, f"window.qwirkle.state.history.length === {turns}")
    assert page.find_element(By.ID, "position-string").text == before
    body.send_keys("y")  # redo: the same turn, the same draw
    settled(page, f"window.qwirkle.state.history.length === {turns + 1}")
    assert page.find_element(By.ID, "position-string").text == after.to_string()
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position === undefined")


def test_a_record_loads_and_steps_to_its_end(page: Any) -> None:
    game = greedy_game(None, seed=21)
    assert game.is_over
    load(page, json.dumps(game.to_record()))
    shown = state(page)
    assert shown_scores(page) == game.scores and shown["summary"]["over"]
    assert len(shown["history"]) == game.turn_count
    page.find_element(By.ID, "step-start").click()
    settled(page, "window.qwirkle.state.history.length === 0")
    assert shown_scores(page) == [0, 0] and len(state(page)["redo"]) == game.turn_count
    page.find_element(By.ID, "step-forward").click()
    settled(page, "window.qwirkle.state.history.length === 1")
    first = game.history[0]
    assert shown_scores(page) == [first.score if p == first.player else 0 for p in range(2)]
    page.find_element(By.ID, "step-end").click()
    settled(page, f"window.qwirkle.state.history.length === {game.turn_count}")
    shown = state(page)
    assert shown_scores(page) == game.scores and shown["summary"]["over"]
    assert "Game over" in page.find_element(By.ID, "turn").text
    assert len(page.find_elements(By.CSS_SELECTOR, "#history li")) == game.turn_count
    # Saved again (the referee's view, which tells the seed): the same record.
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position !== undefined")
    assert page.find_element(By.ID, "seed-shown").text == "21"
    page.find_element(By.ID, "save-record").click()
    settled(page, "document.getElementById('io').value.startsWith('{')")
    assert json.loads(page.find_element(By.ID, "io").get_property("value")) == game.to_record()
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position === undefined")


def test_the_server_s_seed_is_shown_and_saved_exactly(page: Any) -> None:
    """A blank seed: the server deals from 63 bits of its own, above what a JavaScript
    number holds exactly.  The referee's view shows that seed, Save record writes it,
    and the record saved loads back, pretty-printed too, as the same game."""
    Select(page.find_element(By.ID, "players")).select_by_value("2")
    page.execute_script("document.getElementById('seed').value = '';")
    for seat in (0, 1):
        Select(page.find_element(By.ID, f"seat-{seat}")).select_by_value("human")
    page.find_element(By.ID, "new").click()
    settled(page, "window.qwirkle.state.history.length === 0")
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position !== undefined")
    page.find_element(By.ID, "bot-move").click()
    settled(page, "window.qwirkle.state.history.length === 1")
    seed = int(page.find_element(By.ID, "seed-shown").text)
    page.find_element(By.ID, "save-record").click()
    settled(page, "document.getElementById('io').value.startsWith('{')")
    text = page.find_element(By.ID, "io").get_property("value")
    record = json.loads(text)
    assert record["seed"] == seed and len(record["turns"]) == 1
    game = Game.from_record(text)
    assert game.seed == seed and game.scores == shown_scores(page)
    load(page, json.dumps(record, indent=2))
    assert shown_scores(page) == game.scores and len(state(page)["history"]) == 1
    assert int(page.find_element(By.ID, "seed-shown").text) == seed
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position === undefined")


def test_a_record_with_exchanges_step_by_step(page: Any) -> None:
    """Greedy's game of seed 14 exchanges twice: stepped over, each turn's scores and
    move list entry are the library's; an exchange's tiles only in the referee's view."""
    game = greedy_game(None, seed=14)
    exchanges = [i for i, turn in enumerate(game.history) if turn.action.kind == "exchange"]
    assert exchanges
    load(page, json.dumps(game.to_record()))

    def entry(i: int, reveal: bool) -> str:
        turn = game.history[i]
        if turn.action.kind == "exchange":
            text = turn.action.text() if reveal else f"exchange {len(turn.action.tiles)}"
        else:
            text = f"{turn.action.text()} +{turn.score}" if turn.action.kind == "place" else turn.action.text()
        return f"seat {turn.player}: {text}"

    assert shown_turns(page) == [entry(i, False) for i in range(game.turn_count)]
    replay = Game(players=2, seed=14)
    page.find_element(By.ID, "step-start").click()
    settled(page, "window.qwirkle.state.history.length === 0")
    for i in exchanges:
        if i:  # the position before the exchange: a click on the turn before it
            page.find_elements(By.CSS_SELECTOR, "#history li")[i - 1].click()
            settled(page, f"window.qwirkle.state.history.length === {i}")
        page.find_element(By.ID, "step-forward").click()
        settled(page, f"window.qwirkle.state.history.length === {i + 1}")
        while replay.turn_count <= i:
            replay.push(game.history[replay.turn_count].action)
        assert shown_scores(page) == replay.scores and shown_turns(page)[i] == entry(i, False)
        assert not any(t.text() in shown_turns(page)[i] for t in game.history[i].action.tiles)
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position !== undefined")
    assert shown_turns(page)[: exchanges[-1] + 1] == [entry(i, True) for i in range(exchanges[-1] + 1)]
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position === undefined")


def test_exchange_and_a_link_that_reopens_the_position(page: Any) -> None:
    game = greedy_game(8, seed=13)
    load(page, game.to_string())
    page.find_element(By.ID, "referee").click()
    settled(page, "window.qwirkle.state.summary.position !== undefined")
    turns = len(state(page)["history"])  # before the exchange: its reply may come at once
    page.find_element(By.ID, "exchange").click()
    for index in (0, 2):
        page.find_element(By.CSS_SELECTOR, f"#hand .hand-tile[data-index='{index}']").click()
    page.find_element(By.ID, "exchange").click()
    settled(page, f"window.qwirkle.state.history.length === {turns + 1}")
    hand = game.hand()
    game.push(Action.exchange([hand[0], hand[2]]))
    assert page.find_element(By.ID, "position-string").text == game.to_string()
    assert state(page)["history"][-1]["action"] == "exchange"
    page.find_element(By.ID, "link").click()
    settled(page, "location.hash.startsWith('#position=')")
    url = page.current_url
    page.get("about:blank")
    open_board(page, url)  # a new page, a new session, the player's view
    shown = state(page)
    assert "hands" not in shown["summary"] and shown["summary"]["hand"] == hand_json(game)
    assert shown_scores(page) == game.scores and sorted(shown["board"]) == sorted(game.board.to_json())
    page.execute_script("history.replaceState(null, '', location.pathname)")


def test_an_illegal_placement_shows_the_rule(page: Any) -> None:
    game = greedy_game(12, seed=2)
    load(page, game.to_string())
    lit_anywhere = {(r, c, t) for m in game.legal_moves() for r, c, t in m.placements}
    found = None
    for tile in game.hand():
        for r, c, _ in game.board.placements():
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                cell = (r + dr, c + dc)
                if game.board.tile_at(*cell) is None and (*cell, tile) not in lit_anywhere:
                    found = (*cell, tile)
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    r, c, tile = found
    with pytest.raises(IllegalMoveError) as refused:
        game.copy().push(f"{tile.text()}@{r},{c}")
    click_hand(page, tile.kind)
    click_cell(page, r, c)
    assert state(page)["error"] == f"illegal: {refused.value}"
    assert not page.find_element(By.ID, "play").is_enabled()
    page.find_element(By.ID, "clear").click()
    assert state(page)["pending"] == [] and state(page)["error"] == ""


def test_full_move_list_speed(page: Any) -> None:
    game = greedy_game(20, seed=16)  # 260 moves: the most of seeds 0-39 after 20 greedy turns
    load(page, game.to_string())
    took = [page.execute_script("return window.qwirkle.showAllMoves()") for _ in range(5)]
    count = page.execute_script("return Number(document.getElementById('move-list').dataset.count)")
    assert count == len(game.legal_moves())
    TIMINGS["full_move_list"] += took
    print(f"\nfull move list of a mid-game position ({count} moves): {sorted(took)} ms")


def test_win_probabilities_the_endgame_line_and_zoom(page: Any) -> None:
    from qwirkle_core.analysis.endgame import solve_endgame

    late, bot = Game(players=2, seed=1), make_bot("greedy", seed=1)
    while late.bag_size:  # greedy play until the bag is empty (the README's endgame)
        late.push(bot.choose(late))
    load(page, late.to_string())
    page.find_element(By.ID, "solve").click()
    # Generous: the first search in a new environment compiles its kernels first.
    text = wait_for(
        page, "const t = document.getElementById('analysis').textContent; return /^(exact|best found)/.test(t) && t;", 180
    )
    result = solve_endgame(late)
    if text.startswith("exact"):  # else the page's time limit cut it short on a busy machine
        spread = f"+{result.spread}" if result.spread > 0 else str(result.spread)
        assert f"exact: {result.action.text()}, final spread {spread}" in text
        # A best line, played out, ends the game at that spread (where moves tie later in
        # the line, another solve may show another of the best lines: EndgameResult.pv).
        played = late.copy()
        for move in text.split("line: ", 1)[1].split("  "):
            played.push(move)
        mover = late.to_move
        assert played.is_over and played.scores[mover] - played.scores[1 - mover] == result.spread
    # Exact or not: the action is the line's first move, and a legal one.
    action = text.split(": ", 1)[1].split(", final spread")[0]
    line = text.split("line: ", 1)[1].split("  ")
    assert line[0] == action
    late.copy().push(action)  # raises if illegal
    page.find_element(By.ID, "sim").click()
    wait_for(page, "return document.getElementById('analysis').textContent.startsWith('win probabilities')", 180)
    cells = page.execute_script("return [...document.querySelectorAll('#suggestions tr')].map((r) => r.cells[2].textContent)")
    assert cells and all(c.endswith("%") and 0 <= float(c[:-1]) <= 100 for c in cells)
    # Zoom: the + button shows fewer cells, fit shows the tiles again.
    def width() -> float:
        return float(page.execute_script("return document.getElementById('board').getAttribute('viewBox')").split()[2])

    before = width()
    page.find_element(By.ID, "zoom-in").click()
    assert width() < before
    page.find_element(By.ID, "zoom-fit").click()
    assert width() == pytest.approx(before)


def test_stop_ends_a_search_with_its_best_so_far(page: Any) -> None:
    load(page, greedy_game(6, seed=4).to_string())
    # A long simulation, as the page's Win % asks for one but without its limits.
    page.execute_script(
        "window.qwirkle.engine({cmd: 'sim', top: 4, plies: 'end', iterations: 1000000})"
        ".then((r) => { window.stopped = r; });"
    )
    wait_for(page, "return !window.qwirkle.idle()")
    # A stop stops the requests that reached the server before it: pressed until the
    # search has answered, in case the first press overtook the search on the way.
    reply = None
    for _ in range(300):
        page.find_element(By.ID, "stop").click()
        reply = page.execute_script("return window.stopped || null")
        if reply:
            break
        time.sleep(0.2)
    assert reply is not None and reply["ok"] and reply["stopped"] and reply["stopped_by"] == "stop" and reply["ranked"]
