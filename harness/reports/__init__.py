"""Reports of runs and comparisons: report.md, report.html, junit.xml, plots; and the commands around finished runs (see docs/reports.md)."""
