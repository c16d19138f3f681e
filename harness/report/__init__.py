"""Reports: the self-contained HTML report and the console summary."""
