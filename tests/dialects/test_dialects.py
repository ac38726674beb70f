"""The text-dialect recogniser: what it finds in assistant text, and what it refuses to find."""

from __future__ import annotations

import pytest

from auditor.dialects import read

WEATHER = frozenset({"get_weather"})


def only_call(text, names=None):
    (call,) = read(text, names).calls
    return call


# -- calls, one dialect at a time ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names", "dialect", "form"),
    [
        (
            '{"name": "get_weather", "arguments": {"city": "Paris"}}',
            None,
            "json",
            'the `{"name": …, "arguments": …}` JSON dialect',
        ),
        (
            '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}',
            None,
            "json",
            'the `{"name": …, "arguments": …}` JSON dialect',
        ),
        (
            '{"type": "function", "function": {"name": "get_weather", "arguments": '
            '"{\\"city\\": \\"Paris\\"}"}}',
            None,
            "json",
            'the `{"function": {…}}` JSON dialect',
        ),
        (
            '[{"tool": "get_weather", "city": "Paris", "id": "x1"}]',
            WEATHER,
            "json",
            'the flat `{"tool": …}` JSON dialect, inside a JSON array',
        ),
        (
            '{"action": "get_weather", "action_input": {"city": "Paris"}}',
            None,
            "json",
            'the `{"action": …, "action_input": …}` JSON dialect',
        ),
        (
            'Checking.\n```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```',
            None,
            "json",
            'the `{"name": …, "parameters": …}` JSON dialect, in a fenced code block',
        ),
        (
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
            None,
            "hermes",
            "the Hermes/Qwen `<tool_call>` dialect",
        ),
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "</function>\n</tool_call>",
            None,
            "function-tag",
            "the Qwen `<tool_call><function=…>` dialect",
        ),
        (
            '<function=get_weather>{"city": "Paris"}</function>',
            None,
            "function-tag",
            "the Llama `<function=…>` dialect",
        ),
        (
            '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
            None,
            "mistral",
            "the Mistral `[TOOL_CALLS]` dialect",
        ),
        (
            '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}',
            None,
            "mistral",
            "the Mistral `[TOOL_CALLS]` dialect",
        ),
        (
            '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
            None,
            "python-tag",
            "the Llama `<|python_tag|>` dialect",
        ),
        (
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
            '{"city": "Paris"}<|call|>',
            WEATHER,
            "harmony",
            "the harmony `to=functions.…` dialect",
        ),
        (
            'Thought: check.\nAction: get_weather\nAction Input: {"city": "Paris"}',
            None,
            "react",
            "the ReAct `Action:` dialect",
        ),
    ],
    ids=[
        "canonical",
        "arguments-as-json-string",
        "function-wrapper",
        "flat-array",
        "action-input",
        "fenced",
        "hermes",
        "qwen-xml",
        "llama-function",
        "mistral-array",
        "mistral-args",
        "python-tag",
        "harmony",
        "react",
    ],
)
def test_each_dialect_recovers_name_and_arguments(text, names, dialect, form):
    call = only_call(text, names)
    assert (call.name, call.arguments, call.dialect, call.form) == (
        "get_weather",
        {"city": "Paris"},
        dialect,
        form,
    )
    assert not call.repaired


def test_call_span_covers_the_whole_call():
    text = 'Sure. <tool_call>{"name": "get_weather", "arguments": {}}</tool_call> Done.'
    call = only_call(text)
    assert text[slice(*call.span)] == (
        '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    )


def test_flat_dialect_keeps_reserved_keys_out_of_the_arguments():
    call = only_call(
        '{"tool_name": "file_write", "type": "tool", "id": 3, "path": "a.py", "content": "x"}',
        frozenset({"file_write"}),
    )
    assert call.arguments == {"path": "a.py", "content": "x"}


def test_python_tag_builtin_call_syntax():
    call = only_call('<|python_tag|>brave_search.call(query="Oslo population")<|eom_id|>')
    assert (call.name, call.arguments) == ("brave_search", {"query": "Oslo population"})


def test_harmony_python_tool_body_is_code_not_json():
    text = "<|start|>assistant to=python<|channel|>analysis<|message|>print(2 + 2)<|call|>"
    call = only_call(text)
    assert (call.name, call.arguments, call.form) == (
        "python",
        "print(2 + 2)",
        "the harmony `to=…` dialect",
    )


# -- names: declared tools, or strong structure ---------------------------------------------


def test_declared_tools_filter_names():
    assert read('{"name": "lookup", "arguments": {"q": 1}}', WEATHER).calls == ()
    assert read("Action: lookup\nAction Input: x", WEATHER).calls == ()
    assert only_call("Action: get_weather", WEATHER).arguments == {}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Point Pleasant Gym", "lat": 38.8}',  # data, not a call
        '{"name": "get_weather"}',  # a name without arguments
        '{"tool": "hammer", "size": 3}',  # flat needs declared tools
        "Action: get_weather",  # ReAct needs an input where no tools are declared
        '{"name": "get_weather", "arguments": 3}',
        '{"name": "get_weather", "description": "w", "parameters": {"type": "object"}}',
        '{"name": "get_weather", "parameters": {"type": "object", "properties": {}}}',
        '```python\ncall = {"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        'Send `{"name": "get_weather", "arguments": {}}` to the API.',
        'Use `<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>`.',
        '{"action": "Final Answer", "action_input": "42"}',
        "Thought: nothing.\nAction: None\nAction Input: {}",
    ],
)
def test_weak_structure_is_not_a_call_where_no_tools_are_declared(text):
    assert read(text, None).calls == ()


def test_nested_call_inside_other_json_is_not_a_call():
    assert read('{"log": {"name": "get_weather", "arguments": {}}}').calls == ()


# -- malformed JSON: structure decides, json-repair only shows --------------------------------


def test_malformed_json_is_recovered_with_json_repair():
    call = only_call(
        '{\n  "action": "get_weather",\n  "action_input": {\n    "city": "Paris"  // a note\n  }\n}'
    )
    assert (call.name, call.arguments, call.repaired) == ("get_weather", {"city": "Paris"}, True)


def test_unclosed_json_is_recovered():
    call = only_call('{"name": "get_weather", "arguments": {"city": "Paris"')
    assert (call.arguments, call.repaired) == ({"city": "Paris"}, True)


@pytest.mark.parametrize(
    "text",
    [
        '{"a" 1}',  # json-repair makes {'a': ''}
        "{name: get_weather, arguments: {}}",  # no literal "name": "…" in the raw text
        "{" * 300 + '"name": "get_weather", "arguments": {}',  # deep nesting: json-repair raises
    ],
)
def test_json_repair_alone_never_makes_a_call(text):
    assert read(text).calls == ()


# -- ReAct segmentation ---------------------------------------------------------------------


def test_final_answer_inside_the_action_input_string_is_not_a_segment():
    text = (
        "Thought: save the template.\nAction: file_write\n"
        'Action Input: {"path": "t.txt", "content": "Thought: x\nFinal Answer: y"}\n'
        "Observation:"
    )
    reading = read(text, frozenset({"file_write"}))
    assert [s.label for s in reading.segments] == [
        "Thought",
        "Action",
        "Action Input",
        "Observation",
    ]
    assert reading.answers() == ()
    (step,) = reading.steps
    assert step.action_input is not None and step.action_input.value.endswith('y"}')
    (call,) = reading.calls
    assert call.arguments == {"path": "t.txt", "content": "Thought: x\nFinal Answer: y"}
    assert call.repaired  # the raw newline in the string is not valid JSON
    assert not call.observed  # an empty Observation label is not an observation


def test_steps_link_action_input_and_observation():
    reading = read(
        "Action: search\nAction Input: Oslo\nObservation: 709,037\n"
        "Thought: more\nAction: search\nAction Input: Bergen\nFinal Answer: both"
    )
    first, second = reading.steps
    assert (first.action.value, first.action_input.value, first.observation.value) == (
        "search",
        "Oslo",
        "709,037",
    )
    assert second.observation is None
    assert [c.observed for c in reading.calls] == [True, False]
    assert [s.value for s in reading.answers()] == ["both"]


def test_labels_only_at_line_start_and_outside_code():
    text = (
        "- Action: cancel the booking\nI said Final Answer: no.\n"
        "```\nAction: search\nObservation: x\n```"
    )
    assert read(text).segments == ()


def test_numbered_react_labels_and_bracket_actions():
    reading = read("Thought 1: look up\nAction 1: Search[Oslo]\nObservation 1: a city")
    (call,) = reading.calls
    assert (call.name, call.arguments, call.observed) == ("Search", "Oslo", True)


# -- harmony frames, tokens, blocks -----------------------------------------------------------


def test_harmony_frames_with_author_recipient_and_terminator():
    text = (
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
        '{"city": "SF"}<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary'
        '<|message|>{"t": 20}<|end|><|channel|>final<|message|>20 degrees'
    )
    frames = read(text).frames
    assert [(f.author, f.recipient, f.channel, f.body, f.terminator) for f in frames] == [
        ("assistant", "functions.get_weather", "commentary", '{"city": "SF"}', "<|call|>"),
        ("functions.get_weather", "assistant", "commentary", '{"t": 20}', "<|end|>"),
        (None, None, "final", "20 degrees", None),
    ]
    (call,) = read(text).calls  # the tool's own frame is not a call
    assert call.span == frames[0].span


def test_tokens_are_flagged_when_quoted():
    reading = read("Quoted `<|im_end|>`, fenced:\n```\n<|eot_id|>\n```\nand bare <|im_end|>")
    assert [(t.text, t.quoted) for t in reading.tokens] == [
        ("<|im_end|>", True),
        ("<|eot_id|>", True),
        ("<|im_end|>", False),
    ]


def test_html_and_brackets_are_not_tokens():
    assert read("<s>old</s> new [INST-like] <b>|x|</b> a <| b |> c").tokens == ()


def test_tool_call_and_response_blocks():
    reading = read("<tool_call>{}</tool_call>\n<tool_response>ok</tool_response>")
    assert [(b.tag, b.body) for b in reading.blocks] == [
        ("tool_call", "{}"),
        ("tool_response", "ok"),
    ]


def test_plain_answer_reads_empty():
    reading = read("It is sunny in Paris.", WEATHER)
    assert reading.calls == reading.segments == reading.tokens == reading.frames == ()


# -- dialects seen in the wild (model-server bug reports) ------------------------------------

KIMI_SECTION = "<|tool_calls_section_begin|>"
KIMI_END = "<|tool_calls_section_end|>"
KIMI_CALL = "<|tool_call_begin|>"
KIMI_ARGS = "<|tool_call_argument_begin|>"
KIMI_CALL_END = "<|tool_call_end|>"


def test_kimi_sections_are_recovered_as_calls_with_the_name_from_the_id():
    text = (
        f"Checking both.{KIMI_SECTION}{KIMI_CALL}functions.get_weather:0{KIMI_ARGS}"
        f'{{"city": "Paris"}}{KIMI_CALL_END}{KIMI_CALL}get_weather:1{KIMI_ARGS}{{"city": "Oslo"}}'
        f"{KIMI_CALL_END}{KIMI_END}"
    )
    reading = read(text)
    assert [(c.name, c.arguments, c.dialect) for c in reading.calls] == [
        ("get_weather", {"city": "Paris"}, "kimi"),
        ("get_weather", {"city": "Oslo"}, "kimi"),
    ]
    # the section's tokens belong to the calls: EX004 leaves them to EX003
    assert reading.calls[0].span[0] == text.index(KIMI_SECTION)
    assert reading.calls[-1].span[1] == len(text)


def test_kimi_openai_style_ids_cut_off_arguments_and_unwrapped_sections():
    openai_id = f'{KIMI_SECTION}{KIMI_CALL}call_0{KIMI_ARGS}{{"name": "list_files", "path": "/h"}}'
    call = only_call(openai_id)
    assert (call.name, call.arguments, call.repaired) == ("list_files", {"path": "/h"}, False)
    cut = f'{KIMI_SECTION}{KIMI_CALL}functions.search:3{KIMI_ARGS}{{"q": "weather in Pa'
    call = only_call(cut)
    assert (call.name, call.arguments, call.repaired) == ("search", {"q": "weather in Pa"}, True)
    bare = f'{KIMI_SECTION}functions.search:0{KIMI_ARGS}{{"q": "x"}}{KIMI_END}'
    assert only_call(bare).arguments == {"q": "x"}


def test_kimi_tokens_quoted_or_naming_no_declared_tool_are_no_call():
    quoted = f"The model writes `{KIMI_CALL}functions.search:0{KIMI_ARGS}{{}}` for a call."
    assert read(quoted).calls == ()
    undeclared = f"{KIMI_SECTION}{KIMI_CALL}functions.deploy:0{KIMI_ARGS}{{}}{KIMI_CALL_END}"
    assert read(undeclared, WEATHER).calls == ()


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        (
            "<tool_call>\n<name>task\n<parameter=description>\nFix it\n</parameter>\n</function>",
            "task",
            {"description": "Fix it"},
        ),
        (
            "<tool_call>\n<parameter=bash>\n<parameter=command>\nls\n</parameter>\n</function>",
            "bash",
            {"command": "ls"},
        ),
        (
            "Go.\nfunction=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>",
            "Glob",
            {"pattern": "*.md"},
        ),
    ],
)
def test_qwen3_coder_calls_with_a_mangled_opening_tag(text, name, arguments):
    call = only_call(text)
    assert (call.name, call.arguments, call.dialect) == (name, arguments, "function-tag")
    assert "mangled" in call.form


def test_qwen3_coder_closing_tags_without_parameters_or_a_declared_name_are_no_call():
    assert read("Close the call with </function> and the block with </tool_call>.").calls == ()
    mangled = "<tool_call>\n<name>deploy\n<parameter=env>\nprod\n</parameter>\n</function>"
    assert read(mangled, frozenset({"bash"})).calls == ()


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        (
            "Hi!<end_of_turn>\n<start_of_turn>model\nMore?<eos>",
            ["<end_of_turn>", "<start_of_turn>", "<eos>"],
        ),
        ("<bos>Hello", ["<bos>"]),
        ("analysisThe user wants a greeting.assistantfinalHello!", ["analysis", "assistantfinal"]),
        ("Done.assistantcommentary to=functions.search", ["assistantcommentary"]),
        ("The analysis shows growth; the final figures come Friday.", []),
        ("analysis: the data is fine", []),
        ("analysisResult = compute()", []),
        ("Gemma ends with `<eos>`.", ["<eos>"]),  # found, but quoted
    ],
)
def test_gemma_tokens_and_gpt_oss_channel_words_glued_to_the_text(text, tokens):
    found = read(text).tokens
    assert [t.text for t in found] == tokens
    assert all(t.quoted == ("`" in text) for t in found)


def test_llama_index_answer_label_is_a_final_answer_only_in_react_messages():
    react = read("Thought: I can answer without tools.\nAnswer: 42")
    assert [s.value for s in react.answers()] == ["42"]
    assert read("Question: What is six times seven?\nAnswer: 42").answers() == ()


@pytest.mark.parametrize(
    ("text", "names", "form"),
    [
        (
            '[get_weather(city="Paris")]',
            None,
            "the pythonic call-list dialect (`[name(arg=…), …]`)",
        ),
        ('<function-call>[get_weather(city="Paris")]', None, "the `<function-call>` dialect"),
        (
            '<functioncall> {"name": "get_weather", "arguments": {"city": "Paris"}}',
            None,
            "the `<functioncall>` dialect",
        ),
        (
            '<|python_start|>[get_weather(city="Paris")]<|python_end|>',
            None,
            "the `<|python_start|>` dialect",
        ),
        (
            'Checking.\n[get_weather(city="Paris")]\n',
            WEATHER,
            "the pythonic call-list dialect (`[name(arg=…), …]`)",
        ),
    ],
    ids=["bare", "function-call-tag", "functioncall-json", "python-start", "own-line-declared"],
)
def test_pythonic_call_lists(text, names, form):
    call = only_call(text, names)
    assert (call.name, call.arguments, call.dialect, call.form) == (
        "get_weather",
        {"city": "Paris"},
        "pythonic",
        form,
    )


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (
            '<function-call>[get_balance(), send_money(recipient="GB29", amount=?, subject=?)]'
            "</function-call>",
            [
                ("get_balance", {}),
                ("send_money", {"recipient": "GB29", "amount": "?", "subject": "?"}),
            ],
        ),
        (
            '<functioncall>[book(city=Paris, note="a, b", when=<the date>)]',
            [("book", {"city": "Paris", "note": "a, b", "when": "<the date>"})],
        ),
    ],
    ids=["unfilled-values", "bare-words"],
)
def test_a_tagged_list_python_cannot_parse_is_still_read_call_by_call(text, calls):
    assert [(c.name, c.arguments) for c in read(text).calls] == calls


@pytest.mark.parametrize(
    "text",
    [
        "[get_balance(), send_money(amount=?)]",  # untagged: Python or nothing
        "<function-call>[x.get(a=?)]",  # a method call
        "<function-call>[get(1, a=?)]",  # a positional argument
        "<function-call>[get(a=?) for a in (b)]",  # a comprehension
        "`<function-call>[get(a=?)]`",  # quoted
    ],
)
def test_unparseable_python_is_no_call_without_a_tag_or_outside_the_call_shape(text):
    assert read(text).calls == ()


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("[len(x), max(y)]", None),
        ('[page.fetch(url="a")]', None),
        ("[fetch(url=u) for u in urls]", None),
        ('I would call [get_weather(city="Paris")] first.', WEATHER),
        ('Checking.\n[get_weather(city="Paris")]\n', None),
        ('[get_weather(city="Paris")]', frozenset({"get_time"})),
        ('`[get_weather(city="Paris")]`', None),
        ('For example: {"name": "get_weather", "arguments": {"city": "Paris"}}', WEATHER),
        (
            'The body looks like this:\n```json\n{"action": "get_weather", "action_input": {}}'
            "\n```",
            WEATHER,
        ),
    ],
)
def test_python_and_explained_json_are_not_calls(text, names):
    assert read(text, names).calls == ()


def test_tool_with_tool_input_is_a_call_without_declared_tools():
    call = only_call('{"tool": "get_weather", "tool_input": {"city": "Paris"}}', None)
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
    assert read('{"tool": "get_weather", "tool_input": "Paris"}', None).calls == ()


# -- JSON calls by other key names, and flat actions with no tool list ---------------------


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        (
            'Con gusto le ayudo.\n\n```json\n{\n  "action": "consultar_datos_cliente",\n'
            '  "cliente_id": "C001"\n}\n```\n\nUn momento.',
            "consultar_datos_cliente",
            {"cliente_id": "C001"},
        ),
        (
            '```json\n{"action": "consultar_orden", "parameters": {"orden_id": "O003"}}\n```',
            "consultar_orden",
            {"orden_id": "O003"},
        ),
        (
            'Voyons.\n```tool_code\n{"tool": "consulter_promotions", "plan_id": ["102"]}\n```',
            "consulter_promotions",
            {"plan_id": ["102"]},
        ),
        ('{"action": "getBalance", "account": "DE89"}', "getBalance", {"account": "DE89"}),
        (
            '{"function": "get_weather", "args": {"city": "Paris"}}',
            "get_weather",
            {"city": "Paris"},
        ),
        ('{"name": "get_weather", "params": {"city": "Paris"}}', "get_weather", {"city": "Paris"}),
        (
            '{"tool_name": "get_weather", "input": {"city": "Paris"}}',
            "get_weather",
            {"city": "Paris"},
        ),
    ],
    ids=[
        "flat-action-es",
        "action-parameters",
        "flat-tool-fr",
        "camel",
        "function",
        "params",
        "input",
    ],
)
def test_json_calls_by_any_name_and_argument_key_without_declared_tools(text, name, arguments):
    call = only_call(text)
    assert (call.name, call.arguments) == (name, arguments)


def test_flat_action_where_tools_are_declared_needs_a_declared_name():
    assert only_call('{"action": "get_weather", "city": "Paris"}', WEATHER).name == "get_weather"
    assert read('{"action": "get_time", "zone": "CET"}', WEATHER).calls == ()


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ('I logged {"action": "consultar_datos", "id": 1} yesterday.', frozenset()),  # in prose
        (
            '```json\n{"action": "consultar_datos", "id": 1}\n{"a": 2}\n```',
            frozenset(),
        ),  # not alone
        ('```json\n{"action": "login", "user": "bob"}\n```', frozenset()),  # a word, not a function
        (
            '```json\n{"user": "bob", "action": "user_login"}\n```',
            frozenset(),
        ),  # name key not first
        ('[{"action": "user_login", "user": "bob"}]', frozenset()),  # records in an array
        ('{"action": "final_answer", "answer": "42"}', frozenset()),  # says "no call"
        ('{"action": "escalate_case", "reason": "fraud"}', frozenset({"action"})),  # asked format
        ('{"action": "escalate_case", "user name": "x"}', frozenset()),  # a key that is no name
        ('```python\n{"action": "consultar_datos", "id": 1}\n```', frozenset()),  # code
        (
            'The request body looks like this:\n```json\n{"action": "consultar_datos", "id": 1}'
            "\n```",
            frozenset(),
        ),  # explained
        ('{"function": "main", "args": ["x"]}', frozenset()),  # arguments not an object
    ],
)
def test_flat_json_that_is_data_or_an_answer_format_is_no_call(text, asked):
    assert read(text, None, asked).calls == ()
