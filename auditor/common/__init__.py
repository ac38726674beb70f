"""What every layer uses and nothing about agents: errors, dataclass-like structs, lazily
compiled patterns, atomic writes, entry points, text helpers, JSON positions.

A module belongs here when any layer may import it and it knows nothing of logs, formats,
conversations or rules; it imports nothing of auditor's but other modules of this package.
This package itself imports nothing, so importing one of its modules costs that module alone.
"""
