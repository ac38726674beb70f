"""What a team's own rules cost (issue 39): none configured, and ten.

The synthetic tau-like log's first BENCH_OWN_MB megabytes (and tau-bench's real logs from
`../shared/realdata` when present) audited in process, alternately with the default settings,
with a configuration that declares no rule, and with one that declares ten (two of each check
of `auditor.policies`, on the airline's tools). Best of BENCH_RUNS CPU times each; printed,
never asserted.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synthetic import corpora  # noqa: E402

from auditor import config, engine  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "3"))
TEN = """
[[rule]]
code = "BEN001"
name = "change-before-lookup"
description = "Look a reservation up before changing it."
check = "require-before"
call = "update_reservation_*"
before = "get_reservation_details"
same = "reservation_id"

[[rule]]
code = "BEN002"
name = "cancel-before-lookup"
description = "Look a reservation up before cancelling it."
check = "require-before"
call = "cancel_reservation"
before = ["get_reservation_details", "get_user_details"]

[[rule]]
code = "BEN003"
name = "basic-economy-change"
description = "Basic economy flights cannot be modified."
check = "forbid-call"
call = "update_reservation_flights"
where = "cabin == 'basic_economy'"

[[rule]]
code = "BEN004"
name = "big-payment"
description = "No booking above 2000."
check = "forbid-call"
call = "book_reservation"
where = "length(payment_methods) > `1` || total_baggages > `5`"

[[rule]]
code = "BEN005"
name = "search-spree"
description = "At most three searches for one request."
check = "max-calls"
call = "search_*"
most = 3
per = "user-turn"

[[rule]]
code = "BEN006"
name = "lookup-spree"
description = "At most twenty lookups a conversation."
check = "max-calls"
call = "get_*"
most = 20

[[rule]]
code = "BEN007"
name = "user-given"
description = "The user id is one the user gave."
check = "grounded-argument"
call = "get_user_details"
argument = "user_id"

[[rule]]
code = "BEN008"
name = "reservation-given"
description = "The reservation id is one the conversation gave."
check = "grounded-argument"
call = "*_reservation*"
argument = "reservation_id"

[[rule]]
code = "BEN009"
name = "card-number"
description = "No whole card number to the user."
check = "forbid-text"
pattern = '\\b(?:\\d{4}[ -]?){3}\\d{4}\\b'

[[rule]]
code = "BEN010"
name = "internal-url"
description = "No internal address to the user."
check = "forbid-text"
pattern = 'https?://(?:localhost|10\\.|192\\.168\\.|[\\w.-]+\\.internal)\\b'
"""


def _cpu(paths: list[str], settings: config.Settings) -> float:
    start = time.process_time()
    engine.audit(paths, settings)
    return time.process_time() - start


def measure(name: str, paths: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        none, ten = Path(folder, "none.toml"), Path(folder, "ten.toml")
        none.write_text('fail-on = "error"\n')
        ten.write_text(TEN)
        choices = {
            "default": config.build(),
            "a configuration, no rule": config.build(file=config.read(none)),
            "ten own rules": config.build(file=config.read(ten)),
        }
        times: dict[str, list[float]] = {key: [] for key in choices}
        for _ in range(RUNS):  # alternated, so that load drifts over all alike
            for key, settings in choices.items():
                times[key].append(_cpu(paths, settings))
    base = min(times["default"])
    shown = ", ".join(
        f"{key} {min(t):.2f} s ({(min(t) - base) / base * 100:+.1f} %)" for key, t in times.items()
    )
    print(f"own rules, {name}: {shown}")


def main(synthetic: Path) -> None:
    for name, paths in corpora(synthetic, int(os.environ.get("BENCH_OWN_MB", "5"))):
        measure(name, paths)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
