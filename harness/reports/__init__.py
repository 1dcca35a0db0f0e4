"""Reports of runs and comparisons: report.md and report.html (their sections: sections.py), junit.xml, plots (see docs/reports.md)."""
