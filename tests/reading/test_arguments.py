"""Argument values as the FB rules read them: here-documents a command only saves."""

from __future__ import annotations

import pytest

from auditor.reading.arguments import heredocs, saves_only


@pytest.mark.parametrize(
    ("command", "only"),
    [
        ("cat <<'EOF' > repro/settings.py\nSECRET_KEY = 'fake-key'\nEOF", True),
        ("cat <<'EOF' > a.py\nx = 1\nEOF\n", True),
        ("mkdir -p app && cd app && cat > .env <<EOF\nKEY=x\nEOF", True),
        ("tee -a conf.ini <<'EOF' > /dev/null\nk=v\nEOF", True),
        ("cat <<EOF > a.py\nx\nEOF\n# b next\ncat <<EOF >> b.py\ny\nEOF", True),
        ("cat <<'EOF' > .env\nKEY=YOUR_API_KEY\nEOF\npython weather.py", False),  # runs it
        ("python3 <<'EOF'\nprint(1)\nEOF", False),  # fed to a program
        ("cat <<'EOF' | python3\nprint(1)\nEOF", False),
        ("cat <<EOF > $(pwd)/a.py\nx\nEOF", False),  # a substitution runs something
        ("cat <<EOF > a.py || true\nx\nEOF", False),
        ("cat > a.py", False),  # no here-document: nothing to skip
    ],
)
def test_saves_only_accepts_commands_that_do_nothing_but_save_heredocs(command, only):
    runs, _ = heredocs(command)
    assert saves_only(runs, command) is only
