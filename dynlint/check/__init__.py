"""`dynlint check` over a project: what applies to each file (`plan`), the files spread over
the cores (`runner`), the cross-file step (`crossfile`), cache entries as JSON
(`result_json`) and `--explain FILE:LINE` (`explain`).

It sits above the engine, fixes and reports and below the integrations (CLI, server, API).
"""
