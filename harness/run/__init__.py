"""A run: subjects, the engine and orchestration, case results and scoring, the run folder on disk, usage and ledger,
summary.json, monitoring webhooks, expert review, finishing a run.
"""
