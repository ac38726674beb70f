"""What text says: the values, identifiers, arguments, action verbs and sentences that rules and
approvals read in messages and calls, read in one place.

A leaf package: it imports only `auditor.languages` (the lexicons), `auditor.common.patterns`,
`auditor.common.structs` and `auditor.model`, never the replay or the rules, so both can use it.

- `values`: amounts, dates, payment methods, flights, e-mails, ids, quantities a person can
  see (`in_text`) or a call carries (`in_arguments`), each a `Value` with a normalised key
  (`written` holds the tables: months, ordinals, number words, amount forms);
- `identifiers`: tokens that may be identifiers and the written forms that name the same one;
- `arguments`: the strings of a call's arguments, with their keys (`strings`);
- `actions`: the verb families of actions (cancel, send, book, ...) and the tool names that
  say them, in English and the lexicons' languages;
- `sentences`: where a sentence ends, one splitter for every reader of claims, facts and replies.

Each reading is a pure function of its text. The values of a text (`in_text`, `money_in`,
`payments_in`) are kept for the last 512 texts read, so a text the approvals walk and the rules
both read is read once (`tests/reading/test_read_once.py` counts the readings).
"""
