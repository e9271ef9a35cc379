"""Property-based and fuzz tests (hypothesis): bad input never gets through and never crashes."""
