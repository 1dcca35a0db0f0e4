"""Model judges, recorded like extraction calls (docs/judges.md).

`config` (the suite's `judge:` block), `prompts` (judge prompts: prompt versions of the kinds
`harness.judge_*`), `verdict` (reading an answer, n/a when unreadable), `matching` (the
questions after exact/alias/fuzzy and the counts with judged matches), `call` (one case's
questions through `ModelClient` and the judge's own cassettes), `calibration` (agreement with
reviewers' verdicts: Cohen's kappa), `pairwise` (two variants' answers compared in both orders),
`stage` (the run's judging, between rows and finish), `faithfulness` and `facts` ((b) and (c)) and `summary` (the run's judge block and
its gate rules, read by the finish and the gate).
"""
