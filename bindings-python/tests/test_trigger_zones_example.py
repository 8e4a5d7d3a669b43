"""examples/trigger_zones.py, run as a user runs it: every enter and exit it
prints is the brute-force set difference of the (agent, sensor) overlaps of
consecutive frames, and its total agrees."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import load_example

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "trigger_zones.py"


@pytest.fixture(scope="module")
def example():
    return load_example("trigger_zones")


def inside(ids, agents, sensors):
    """Brute force: every (agent id, sensor) whose closed boxes meet."""
    meet = (
        (agents[:, None, 0] <= sensors[None, :, 2])
        & (sensors[None, :, 0] <= agents[:, None, 2])
        & (agents[:, None, 1] <= sensors[None, :, 3])
        & (sensors[None, :, 1] <= agents[:, None, 3])
    )
    a, s = np.nonzero(meet)
    return {(int(ids[i]), int(j)) for i, j in zip(a, s)}


def printed(out):
    """The events the example printed, per frame number: (entered, left) sets."""
    frames = {}
    for line in out.splitlines():
        match = re.fullmatch(r"frame (\d+): inside (\d+) \| (.*)", line)
        if not match:
            continue
        entered, left = set(), set()
        for agent, verb, sensor in re.findall(r"agent (\d+) (entered|left) sensor (\d+)", match[3]):
            (entered if verb == "entered" else left).add((int(agent), int(sensor)))
        frames[int(match[1])] = (entered, left, int(match[2]))
    return frames


@pytest.mark.parametrize("index", ["grid", "quadtree", "loose-grid", "loose-quadtree"])
def test_printed_events_are_the_brute_force_differences(example, index):
    count, agents, sensors, seed = 40, 400, 3, 5
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--frames", str(count), "--agents", str(agents),
         "--sensors", str(sensors), "--seed", str(seed), "--index", index],
        check=True, capture_output=True, text=True,
    ).stdout
    shown = printed(out)
    before = set()
    entered = left = 0
    respawned = False
    previous_ids = None
    for frame, (ids, agent_rects, sensor_rects) in enumerate(example.frames(count, agents, sensors, seed)):
        now = inside(ids, agent_rects, sensor_rects)
        expect = (now - before, before - now)
        if expect[0] or expect[1]:
            assert shown.pop(frame) == (*expect, len(now)), f"frame {frame}"
        else:
            assert frame not in shown, f"frame {frame}: events printed, none expected"
        if previous_ids is not None and (ids != previous_ids).any():
            # A despawned agent that was inside a sensor leaves it, under its old id.
            gone = set(previous_ids[ids != previous_ids].tolist())
            respawned |= any(agent in gone for agent, _ in expect[1])
        entered, left = entered + len(expect[0]), left + len(expect[1])
        before, previous_ids = now, ids
    assert not shown, f"events printed for frames that do not exist: {sorted(shown)}"
    assert f"total: {entered} entered, {left} left, {len(before)} inside at the end" in out
    # The scene exercises what it shows: many enters and exits, and a despawn's exit.
    assert entered > 20 and left > 20
    assert respawned


def test_run_returns_what_it_prints(example, capsys):
    log = example.run(12, 300, 2, 9, quiet=True)
    assert len(log) == 12
    out = capsys.readouterr().out
    entered = sum(len(e) for e, _ in log)
    left = sum(len(e) for _, e in log)
    assert out.startswith(f"total: {entered} entered, {left} left, ")
