"""News every connection hears is told once per burst (``web.live.OncePerBurst``), not once per visitor."""

from __future__ import annotations

import asyncio

from pigdice.web.live import OncePerBurst


def test_a_burst_of_requests_runs_once_after_the_delay_and_a_later_one_runs_again() -> None:
    async def scenario() -> list[int]:
        told: list[int] = []
        news = OncePerBurst(0.05)
        watching = [0]  # read when the news is told, as a room's count is
        for _ in range(50):  # 50 visitors open the room together: everyone is told once, the final count
            watching[0] += 1
            news.request(lambda: told.append(watching[0]))
        assert told == []  # nothing yet: the burst is still gathering
        await asyncio.sleep(0.2)
        watching[0] -= 1
        news.request(lambda: told.append(watching[0]))  # one leaves later: told again
        await asyncio.sleep(0.2)
        return told

    assert asyncio.run(scenario()) == [50, 49]
