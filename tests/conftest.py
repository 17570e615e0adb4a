"""The JIT-off run's coverage, paused for its slowest tests.

In the JIT-off run of .ci/test.sh ([nojit]: the kernels run as plain Python, under
coverage.py), the tracer makes every line cost more: the match tests took 42 s traced
and 18 s untraced.  The tests below, the slowest of that run (2.5 s or more each, but
for those that alone reach a command's or a module's lines), play whole games,
matches, simulations and datasets through lines that the faster tests also reach.  In
that run they still run, so their kernels are still checked as plain Python, but
untraced: coverage counts what the other tests reach.  Measured one after the other
on the 2-core machine: the run took 471 s of CPU with every test traced (coverage
93 %, 951 lines missed of 12,820) and 312 s with these untraced (92 %, 1,085 missed).
Everywhere else (the JIT on, or no coverage) this changes nothing.  A name here that
no longer names a test is an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numba
import pytest

# (pytest's node ids, as --durations prints them.)
UNTRACED_IDS = """
tests/test_against_reference.py::test_live_tiles_of_a_row_word_are_the_run_starts_with_a_fitting_end
tests/test_against_reference.py::test_masks_equal_reference
tests/test_against_reference.py::test_moves_equal_reference_through_a_game
tests/test_against_reference.py::test_push_then_pop_restores_bit_for_bit
tests/test_against_reference.py::test_pushed_state_equals_a_state_built_afresh
tests/test_board_input.py::test_from_placements_with_one_part_replaced[in place]
tests/test_datasets.py::test_a_kill_at_any_step_resumes_to_the_same_bytes
tests/test_datasets.py::test_a_rerun_writes_only_what_is_missing
tests/test_datasets.py::test_an_extension_killed_at_any_step_resumes_to_the_same_bytes
tests/test_datasets.py::test_extending_in_place_gives_the_bytes_of_one_run
tests/test_datasets.py::test_long_games_are_written_whole
tests/test_datasets.py::test_the_reader_columns_say_what_the_records_say
tests/test_encoding.py::test_sub_step_sequences_are_the_legal_actions_each_once[4]
tests/test_encoding.py::test_sub_step_sequences_are_the_legal_actions_each_once[6]
tests/test_engine_analysis.py::test_best_names_a_bot
tests/test_engine_analysis.py::test_sim_reply_is_simulate_for_the_same_seed
tests/test_game.py::test_whole_games
tests/test_hardening.py::test_moves_at_the_edge_read_back[3]
tests/test_hardening.py::test_read_only_queries_are_safe_from_many_threads
tests/test_match.py::test_counts_add_up
tests/test_match.py::test_each_deal_is_played_twice_with_the_seats_swapped
tests/test_match.py::test_random_against_greedy_is_lopsided
tests/test_match.py::test_the_pair_is_the_same_deal_played_by_each_order_of_seats
tests/test_match.py::test_the_seeds_wrap_at_2_64
tests/test_match.py::test_the_statistics_of_a_real_match_recomputed
tests/test_match.py::test_threads_do_not_change_the_games
tests/test_queries.py::test_batch_equals_one_by_one
tests/test_queries.py::test_move_risk_equal_naive
tests/test_queries.py::test_slots_and_risk_meet_real_cases
tests/test_simulation.py::test_determinism_for_a_seed
tests/test_simulation.py::test_iterations_and_time_limit
tests/test_simulation.py::test_no_hidden_information
tests/test_simulation.py::test_to_the_end_ends_every_game
tests/test_simulation.py::test_win_model_calibration[2]
tests/test_vector_env.py::test_seat_rewards_sum_to_each_seat_s_points_over_a_game[2-greedy-0]
tests/test_vector_env.py::test_seat_rewards_sum_to_each_seat_s_points_over_a_game[4-opponents2-1]
tests/test_web.py::test_time_bound
""".strip().splitlines()
UNTRACED = frozenset(UNTRACED_IDS)


def _coverage():  # type: ignore[no-untyped-def]
    """The coverage.py measurement running in this process, if any."""
    try:
        import coverage
    except ImportError:
        return None
    return coverage.Coverage.current()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each listed test's function must be in its module where that module was
    collected: a renamed test would otherwise be traced again without a word, and the
    run slower.  (Checked by function, not by the tests collected, so that a run of
    one test by its id, or of a selection, is not mistaken for tests gone.)"""
    modules = {item.nodeid.split("::")[0]: item.module for item in items if isinstance(item, pytest.Function)}
    gone = sorted(
        nodeid for nodeid in UNTRACED
        if nodeid.split("::")[0] in modules
        and not hasattr(modules[nodeid.split("::")[0]], nodeid.split("::")[1].split("[")[0])
    )
    if gone:
        raise pytest.UsageError(f"{Path(__file__).name}: UNTRACED_IDS names tests that are gone: {', '.join(gone)}")


@pytest.fixture(autouse=True)
def _untraced_when_slow(request: pytest.FixtureRequest) -> Iterator[None]:
    measuring = _coverage() if numba.config.DISABLE_JIT and request.node.nodeid in UNTRACED else None
    if measuring is None:
        yield
        return
    measuring.stop()
    try:
        yield
    finally:
        measuring.start()
