"""The command's back rooms: what each subcommand and mode of `audit` does, end to end, once
`cli` has parsed its arguments.

`run` (one run: options -> Settings -> engine -> the chosen reporter; `audit compare` with the
same steps), `guards` (what a run checks before it reads or writes), `baseline`
(`--write-baseline`, `--baseline`), `statistics` (`--statistics`), `info` (`--explain`,
`--rules`, `--formats`, `--show-files`, `--show-settings`) and `show_reading`
(`--show-reading`).
"""
