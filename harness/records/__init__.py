"""The typed records passed between the stages: the transcript (messages, completions, calls, answers, reviews), the
arm, consensus-vote and external-council records it carries, score names, score sets and checks, and a person's
expert-review verdict.
"""
