"""What the language layer costs on English-only logs (issue 35: under 10 %).

Each English-only corpus (the synthetic tau-like log's first BENCH_LANG_MB megabytes, and
tau-bench's real logs from `../shared/realdata` when present) is audited in process, alternately
as the build does it and with every conversation taken for English without looking
(`languages_of` answering `("en",)` where replay and the approvals call it): the difference is
what deciding the language, and reading with it, costs an English log. Best of BENCH_RUNS
CPU times each; printed, never asserted.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synthetic import corpora  # noqa: E402

from auditor import config, engine  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "3"))


@contextmanager
def english_only() -> Iterator[None]:
    """Every conversation read in English, its language never decided."""
    import auditor.replay as replay_module
    from auditor.replay.approvals import language

    saved = (replay_module.languages_of, language.languages_of)
    replay_module.languages_of = language.languages_of = lambda _sample: ("en",)  # type: ignore[assignment]
    try:
        yield
    finally:
        replay_module.languages_of, language.languages_of = saved  # type: ignore[assignment]


def _cpu(paths: list[str], settings: config.Settings) -> float:
    start = time.process_time()
    engine.audit(paths, settings)
    return time.process_time() - start


def measure(name: str, paths: list[str]) -> None:
    settings = config.build()
    with_layer, without = [], []
    for _ in range(RUNS):  # alternated, so that load drifts over both alike
        with_layer.append(_cpu(paths, settings))
        with english_only():
            without.append(_cpu(paths, settings))
    a, b = min(with_layer), min(without)
    print(
        f"language layer, {name}: {a:.2f} s CPU with it, {b:.2f} s taken for English: "
        f"{(a - b) / b * 100:+.1f} %"
    )


def main(synthetic: Path) -> None:
    for name, paths in corpora(synthetic, int(os.environ.get("BENCH_LANG_MB", "5"))):
        measure(name, paths)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
