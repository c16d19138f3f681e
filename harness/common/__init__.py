"""The ground floor: the record base class, user-facing errors, atomic files, untrusted-text safety, the tokenizer, the
JSON scanner, weights, secrets, the console and formatters, and the shared vocabulary (rubric terms, score families,
run-folder file names). Imports no other harness package.
"""
