"""Property tests: any record, however malformed, is read without a crash and is counted."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import audit

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
roles = st.sampled_from(["user", "assistant", "tool", "system", "function", "developer", 7, None])
ids = st.sampled_from(["a", "b", "c", None, 1, ""])
call = st.fixed_dictionaries(
    {},
    optional={
        "id": ids,
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["f", "g", "", None, 3]),
                "arguments": json_values | st.text(max_size=12),
            },
        )
        | json_values,
        "name": st.sampled_from(["f", "g"]),
        "arguments": json_values,
    },
)
message = st.fixed_dictionaries(
    {"role": roles},
    optional={
        "content": json_values,
        "tool_calls": st.lists(call | json_values, max_size=3) | json_values,
        "tool_call_id": ids,
        "id": ids,
        "function_call": json_values,
        "error": json_values,
    },
)
conversation = st.fixed_dictionaries(
    {"messages": st.lists(message | json_values, max_size=6)},
    optional={"id": ids, "tools": json_values},
)
tau_entry = st.fixed_dictionaries(
    {"traj": st.lists(message, max_size=5)}, optional={"task_id": json_values, "trial": json_values}
)
record = conversation | tau_entry | st.lists(message, min_size=1, max_size=4) | json_values


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(record, min_size=1, max_size=5))
def test_any_records_are_read_without_crash_and_counted(tmp_path, records):
    path = tmp_path / "fuzz.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = audit([path])
    assert report.errors == (), report.errors
    assert report.counts.records == len(records)
    for f in report.findings:
        assert f.line is not None and 1 <= f.line <= len(records)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=400))
def test_any_bytes_are_read_without_crash_and_every_line_counted(tmp_path, data):
    path = tmp_path / "noise.jsonl"
    path.write_bytes(data)
    report = audit([path])
    assert report.errors == ()
    # A UTF-8 byte order mark at the start of the file is not content.
    text = data.removeprefix(b"\xef\xbb\xbf")
    non_blank = [line for line in text.split(b"\n") if line.strip()]
    assert report.counts.records == len(non_blank)
    unreadable = [f for f in report.findings if f.code == "IN001"]
    assert len(unreadable) <= len(non_blank)
